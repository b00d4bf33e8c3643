# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_agentteam_global_optspecs
    string join \n profile= timeout= retries= format= v/verbose h/help V/version
end

function __fish_agentteam_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_agentteam_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_agentteam_using_subcommand
    set -l cmd (__fish_agentteam_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c agentteam -n "__fish_agentteam_needs_command" -l profile -d 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store\'s default profile]' -r
complete -c agentteam -n "__fish_agentteam_needs_command" -l timeout -d 'Seconds one HTTP attempt may take, connection included [default: 30]' -r
complete -c agentteam -n "__fish_agentteam_needs_command" -l retries -d 'Extra attempts after a transient failure, for reads, set_claim and keyed creates only [default: 2]' -r
complete -c agentteam -n "__fish_agentteam_needs_command" -l format -d 'Output format [default: text on a terminal, json otherwise]' -r -f -a "json\t'The authority: one JSON document (compact when piped, indented on a terminal)'
text\t'A short human view: tables, summaries, one-line receipts and errors'"
complete -c agentteam -n "__fish_agentteam_needs_command" -s v -l verbose -l debug -d 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
complete -c agentteam -n "__fish_agentteam_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentteam -n "__fish_agentteam_needs_command" -s V -l version -d 'Print version'
complete -c agentteam -n "__fish_agentteam_needs_command" -f -a "exec" -d 'Run a registered action: `agentteam exec <domain> <action> -`'
complete -c agentteam -n "__fish_agentteam_needs_command" -f -a "auth" -d 'Manage credential profiles (workspace, agent, token)'
complete -c agentteam -n "__fish_agentteam_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c agentteam -n "__fish_agentteam_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and not __fish_seen_subcommand_from task help" -l profile -d 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store\'s default profile]' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and not __fish_seen_subcommand_from task help" -l timeout -d 'Seconds one HTTP attempt may take, connection included [default: 30]' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and not __fish_seen_subcommand_from task help" -l retries -d 'Extra attempts after a transient failure, for reads, set_claim and keyed creates only [default: 2]' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and not __fish_seen_subcommand_from task help" -l format -d 'Output format [default: text on a terminal, json otherwise]' -r -f -a "json\t'The authority: one JSON document (compact when piped, indented on a terminal)'
text\t'A short human view: tables, summaries, one-line receipts and errors'"
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and not __fish_seen_subcommand_from task help" -l catalog -d 'Print the whole registry as JSON: every action, its metadata and both schemas'
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and not __fish_seen_subcommand_from task help" -l error-schema -d 'Print the JSON Schema of the error document, with every error code'
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and not __fish_seen_subcommand_from task help" -s v -l verbose -l debug -d 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and not __fish_seen_subcommand_from task help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and not __fish_seen_subcommand_from task help" -f -a "task" -d 'Actions of the `task` domain'
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and not __fish_seen_subcommand_from task help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and __fish_seen_subcommand_from task" -l profile -d 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store\'s default profile]' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and __fish_seen_subcommand_from task" -l timeout -d 'Seconds one HTTP attempt may take, connection included [default: 30]' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and __fish_seen_subcommand_from task" -l retries -d 'Extra attempts after a transient failure, for reads, set_claim and keyed creates only [default: 2]' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and __fish_seen_subcommand_from task" -l format -d 'Output format [default: text on a terminal, json otherwise]' -r -f -a "json\t'The authority: one JSON document (compact when piped, indented on a terminal)'
text\t'A short human view: tables, summaries, one-line receipts and errors'"
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and __fish_seen_subcommand_from task" -s v -l verbose -l debug -d 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and __fish_seen_subcommand_from task" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and __fish_seen_subcommand_from task" -f -a "list" -d 'Browse or search the tasks of one board.'
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and __fish_seen_subcommand_from task" -f -a "get" -d 'Read one task in detail.'
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and __fish_seen_subcommand_from task" -f -a "create" -d 'Create tasks or subtasks on a board.'
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and __fish_seen_subcommand_from task" -f -a "update" -d 'Change a task\'s fields or status.'
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and __fish_seen_subcommand_from task" -f -a "set_claim" -d 'Claim or release tasks for the calling agent.'
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and __fish_seen_subcommand_from task" -f -a "checkpoint" -d 'Append a durable checkpoint to a task.'
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and __fish_seen_subcommand_from task" -f -a "delete" -d 'Permanently delete a task the agent created.'
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and __fish_seen_subcommand_from task" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and __fish_seen_subcommand_from help" -f -a "task" -d 'Actions of the `task` domain'
complete -c agentteam -n "__fish_agentteam_using_subcommand exec; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and not __fish_seen_subcommand_from login status logout help" -l profile -d 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store\'s default profile]' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and not __fish_seen_subcommand_from login status logout help" -l timeout -d 'Seconds one HTTP attempt may take, connection included [default: 30]' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and not __fish_seen_subcommand_from login status logout help" -l retries -d 'Extra attempts after a transient failure, for reads, set_claim and keyed creates only [default: 2]' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and not __fish_seen_subcommand_from login status logout help" -l format -d 'Output format [default: text on a terminal, json otherwise]' -r -f -a "json\t'The authority: one JSON document (compact when piped, indented on a terminal)'
text\t'A short human view: tables, summaries, one-line receipts and errors'"
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and not __fish_seen_subcommand_from login status logout help" -s v -l verbose -l debug -d 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and not __fish_seen_subcommand_from login status logout help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and not __fish_seen_subcommand_from login status logout help" -f -a "login" -d 'Save a profile: API URL, workspace, agent, and a token and/or a credential process'
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and not __fish_seen_subcommand_from login status logout help" -f -a "status" -d 'Show the selected profile as JSON, token redacted'
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and not __fish_seen_subcommand_from login status logout help" -f -a "logout" -d 'Remove the selected profile'
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and not __fish_seen_subcommand_from login status logout help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from login" -l api-url -d 'Base URL of the Agent Runtime API, e.g. http://127.0.0.1:8787' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from login" -l workspace -d 'Workspace id' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from login" -l agent -d 'Agent id' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from login" -l credential-process -d 'Command line (POSIX quoting) that prints a fresh token as JSON' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from login" -l token -d 'Refused: a token in argv is readable by other users; use --token-stdin' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from login" -l profile -d 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store\'s default profile]' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from login" -l timeout -d 'Seconds one HTTP attempt may take, connection included [default: 30]' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from login" -l retries -d 'Extra attempts after a transient failure, for reads, set_claim and keyed creates only [default: 2]' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from login" -l format -d 'Output format [default: text on a terminal, json otherwise]' -r -f -a "json\t'The authority: one JSON document (compact when piped, indented on a terminal)'
text\t'A short human view: tables, summaries, one-line receipts and errors'"
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from login" -l token-stdin -d 'Read the agent\'s token from stdin'
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from login" -s v -l verbose -l debug -d 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from login" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from status" -l profile -d 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store\'s default profile]' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from status" -l timeout -d 'Seconds one HTTP attempt may take, connection included [default: 30]' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from status" -l retries -d 'Extra attempts after a transient failure, for reads, set_claim and keyed creates only [default: 2]' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from status" -l format -d 'Output format [default: text on a terminal, json otherwise]' -r -f -a "json\t'The authority: one JSON document (compact when piped, indented on a terminal)'
text\t'A short human view: tables, summaries, one-line receipts and errors'"
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from status" -s v -l verbose -l debug -d 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from logout" -l profile -d 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store\'s default profile]' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from logout" -l timeout -d 'Seconds one HTTP attempt may take, connection included [default: 30]' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from logout" -l retries -d 'Extra attempts after a transient failure, for reads, set_claim and keyed creates only [default: 2]' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from logout" -l format -d 'Output format [default: text on a terminal, json otherwise]' -r -f -a "json\t'The authority: one JSON document (compact when piped, indented on a terminal)'
text\t'A short human view: tables, summaries, one-line receipts and errors'"
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from logout" -s v -l verbose -l debug -d 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from logout" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from help" -f -a "login" -d 'Save a profile: API URL, workspace, agent, and a token and/or a credential process'
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from help" -f -a "status" -d 'Show the selected profile as JSON, token redacted'
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from help" -f -a "logout" -d 'Remove the selected profile'
complete -c agentteam -n "__fish_agentteam_using_subcommand auth; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentteam -n "__fish_agentteam_using_subcommand completions" -l profile -d 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store\'s default profile]' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand completions" -l timeout -d 'Seconds one HTTP attempt may take, connection included [default: 30]' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand completions" -l retries -d 'Extra attempts after a transient failure, for reads, set_claim and keyed creates only [default: 2]' -r
complete -c agentteam -n "__fish_agentteam_using_subcommand completions" -l format -d 'Output format [default: text on a terminal, json otherwise]' -r -f -a "json\t'The authority: one JSON document (compact when piped, indented on a terminal)'
text\t'A short human view: tables, summaries, one-line receipts and errors'"
complete -c agentteam -n "__fish_agentteam_using_subcommand completions" -s v -l verbose -l debug -d 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
complete -c agentteam -n "__fish_agentteam_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agentteam -n "__fish_agentteam_using_subcommand help; and not __fish_seen_subcommand_from exec auth completions help" -f -a "exec" -d 'Run a registered action: `agentteam exec <domain> <action> -`'
complete -c agentteam -n "__fish_agentteam_using_subcommand help; and not __fish_seen_subcommand_from exec auth completions help" -f -a "auth" -d 'Manage credential profiles (workspace, agent, token)'
complete -c agentteam -n "__fish_agentteam_using_subcommand help; and not __fish_seen_subcommand_from exec auth completions help" -f -a "completions" -d 'Print a shell completion script'
complete -c agentteam -n "__fish_agentteam_using_subcommand help; and not __fish_seen_subcommand_from exec auth completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c agentteam -n "__fish_agentteam_using_subcommand help; and __fish_seen_subcommand_from exec" -f -a "task" -d 'Actions of the `task` domain'
complete -c agentteam -n "__fish_agentteam_using_subcommand help; and __fish_seen_subcommand_from auth" -f -a "login" -d 'Save a profile: API URL, workspace, agent, and a token and/or a credential process'
complete -c agentteam -n "__fish_agentteam_using_subcommand help; and __fish_seen_subcommand_from auth" -f -a "status" -d 'Show the selected profile as JSON, token redacted'
complete -c agentteam -n "__fish_agentteam_using_subcommand help; and __fish_seen_subcommand_from auth" -f -a "logout" -d 'Remove the selected profile'
