
use builtin;
use str;

set edit:completion:arg-completer[agentteam] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'agentteam'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'agentteam'= {
            cand --profile 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]'
            cand --timeout 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]'
            cand --retries 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]'
            cand --format 'Output format [default: text on a terminal, json otherwise]'
            cand -v 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand --verbose 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand exec 'Run a registered action: `agentteam exec <domain> <action> -`'
            cand auth 'Manage credential profiles (workspace, agent, token)'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'agentteam;exec'= {
            cand --profile 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]'
            cand --timeout 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]'
            cand --retries 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]'
            cand --format 'Output format [default: text on a terminal, json otherwise]'
            cand --catalog 'Print the registry as JSON: every action, its metadata, examples and both schemas'
            cand --full 'With --catalog: also the error schema (the whole registry)'
            cand --error-schema 'Print the JSON Schema of the error document, with every error code'
            cand -v 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand --verbose 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand task 'Actions of the `task` domain'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'agentteam;exec;task'= {
            cand --profile 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]'
            cand --timeout 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]'
            cand --retries 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]'
            cand --format 'Output format [default: text on a terminal, json otherwise]'
            cand -v 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand --verbose 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand list 'Browse or search the tasks of one board.'
            cand get 'Read one task in detail.'
            cand create 'Create tasks or subtasks on a board.'
            cand update 'Change a task''s fields or status.'
            cand set_claim 'Claim or release tasks for the calling agent.'
            cand checkpoint 'Append a durable checkpoint to a task.'
            cand delete 'Permanently delete a task the agent created.'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'agentteam;exec;task;list'= {
            cand --concurrency 'With --batch: requests in flight at once, 1 to 64 [default: 4]'
            cand --max-items 'With --paginate: stop after N items and name the cursor that goes on (on stderr) [default: no limit]'
            cand --profile 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]'
            cand --timeout 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]'
            cand --retries 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]'
            cand --format 'Output format [default: text on a terminal, json otherwise]'
            cand --input-schema 'Print the input JSON Schema and exit (INPUT, if given, is not read)'
            cand --output-schema 'Print the JSON Schema of the success document and exit (INPUT is not read)'
            cand --example 'Print a valid example input (the first) and exit (INPUT is not read)'
            cand --examples 'Print every example as a JSON array of {description, input, command} and exit'
            cand --dry-run 'Validate and resolve credentials, print the request that would be sent (token redacted, `data.dry_run: true`), send nothing; with --batch, a dry run per line'
            cand --batch 'Read newline-delimited JSON objects; print one JSON result line per input line, in input order'
            cand --paginate 'Follow next_cursor to the end: each item as one JSON line, or with --format text (the terminal default) one table, page by page'
            cand -v 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand --verbose 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'agentteam;exec;task;get'= {
            cand --concurrency 'With --batch: requests in flight at once, 1 to 64 [default: 4]'
            cand --profile 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]'
            cand --timeout 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]'
            cand --retries 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]'
            cand --format 'Output format [default: text on a terminal, json otherwise]'
            cand --input-schema 'Print the input JSON Schema and exit (INPUT, if given, is not read)'
            cand --output-schema 'Print the JSON Schema of the success document and exit (INPUT is not read)'
            cand --example 'Print a valid example input (the first) and exit (INPUT is not read)'
            cand --examples 'Print every example as a JSON array of {description, input, command} and exit'
            cand --dry-run 'Validate and resolve credentials, print the request that would be sent (token redacted, `data.dry_run: true`), send nothing; with --batch, a dry run per line'
            cand --batch 'Read newline-delimited JSON objects; print one JSON result line per input line, in input order'
            cand -v 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand --verbose 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'agentteam;exec;task;create'= {
            cand --concurrency 'With --batch: requests in flight at once, 1 to 64 [default: 4]'
            cand --profile 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]'
            cand --timeout 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]'
            cand --retries 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]'
            cand --format 'Output format [default: text on a terminal, json otherwise]'
            cand --input-schema 'Print the input JSON Schema and exit (INPUT, if given, is not read)'
            cand --output-schema 'Print the JSON Schema of the success document and exit (INPUT is not read)'
            cand --example 'Print a valid example input (the first) and exit (INPUT is not read)'
            cand --examples 'Print every example as a JSON array of {description, input, command} and exit'
            cand --dry-run 'Validate and resolve credentials, print the request that would be sent (token redacted, `data.dry_run: true`), send nothing; with --batch, a dry run per line'
            cand --batch 'Read newline-delimited JSON objects; print one JSON result line per input line, in input order'
            cand -v 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand --verbose 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'agentteam;exec;task;update'= {
            cand --concurrency 'With --batch: requests in flight at once, 1 to 64 [default: 4]'
            cand --profile 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]'
            cand --timeout 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]'
            cand --retries 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]'
            cand --format 'Output format [default: text on a terminal, json otherwise]'
            cand --input-schema 'Print the input JSON Schema and exit (INPUT, if given, is not read)'
            cand --output-schema 'Print the JSON Schema of the success document and exit (INPUT is not read)'
            cand --example 'Print a valid example input (the first) and exit (INPUT is not read)'
            cand --examples 'Print every example as a JSON array of {description, input, command} and exit'
            cand --dry-run 'Validate and resolve credentials, print the request that would be sent (token redacted, `data.dry_run: true`), send nothing; with --batch, a dry run per line'
            cand --batch 'Read newline-delimited JSON objects; print one JSON result line per input line, in input order'
            cand -v 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand --verbose 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'agentteam;exec;task;set_claim'= {
            cand --concurrency 'With --batch: requests in flight at once, 1 to 64 [default: 4]'
            cand --profile 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]'
            cand --timeout 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]'
            cand --retries 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]'
            cand --format 'Output format [default: text on a terminal, json otherwise]'
            cand --input-schema 'Print the input JSON Schema and exit (INPUT, if given, is not read)'
            cand --output-schema 'Print the JSON Schema of the success document and exit (INPUT is not read)'
            cand --example 'Print a valid example input (the first) and exit (INPUT is not read)'
            cand --examples 'Print every example as a JSON array of {description, input, command} and exit'
            cand --dry-run 'Validate and resolve credentials, print the request that would be sent (token redacted, `data.dry_run: true`), send nothing; with --batch, a dry run per line'
            cand --batch 'Read newline-delimited JSON objects; print one JSON result line per input line, in input order'
            cand -v 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand --verbose 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'agentteam;exec;task;checkpoint'= {
            cand --concurrency 'With --batch: requests in flight at once, 1 to 64 [default: 1, so appends are stored in the input''s order]'
            cand --profile 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]'
            cand --timeout 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]'
            cand --retries 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]'
            cand --format 'Output format [default: text on a terminal, json otherwise]'
            cand --input-schema 'Print the input JSON Schema and exit (INPUT, if given, is not read)'
            cand --output-schema 'Print the JSON Schema of the success document and exit (INPUT is not read)'
            cand --example 'Print a valid example input (the first) and exit (INPUT is not read)'
            cand --examples 'Print every example as a JSON array of {description, input, command} and exit'
            cand --dry-run 'Validate and resolve credentials, print the request that would be sent (token redacted, `data.dry_run: true`), send nothing; with --batch, a dry run per line'
            cand --batch 'Read newline-delimited JSON objects; print one JSON result line per input line, in input order'
            cand -v 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand --verbose 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'agentteam;exec;task;delete'= {
            cand --concurrency 'With --batch: requests in flight at once, 1 to 64 [default: 4]'
            cand --profile 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]'
            cand --timeout 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]'
            cand --retries 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]'
            cand --format 'Output format [default: text on a terminal, json otherwise]'
            cand --input-schema 'Print the input JSON Schema and exit (INPUT, if given, is not read)'
            cand --output-schema 'Print the JSON Schema of the success document and exit (INPUT is not read)'
            cand --example 'Print a valid example input (the first) and exit (INPUT is not read)'
            cand --examples 'Print every example as a JSON array of {description, input, command} and exit'
            cand --dry-run 'Validate and resolve credentials, print the request that would be sent (token redacted, `data.dry_run: true`), send nothing; with --batch, a dry run per line'
            cand --batch 'Read newline-delimited JSON objects; print one JSON result line per input line, in input order'
            cand -v 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand --verbose 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'agentteam;exec;task;help'= {
            cand list 'Browse or search the tasks of one board.'
            cand get 'Read one task in detail.'
            cand create 'Create tasks or subtasks on a board.'
            cand update 'Change a task''s fields or status.'
            cand set_claim 'Claim or release tasks for the calling agent.'
            cand checkpoint 'Append a durable checkpoint to a task.'
            cand delete 'Permanently delete a task the agent created.'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'agentteam;exec;task;help;list'= {
        }
        &'agentteam;exec;task;help;get'= {
        }
        &'agentteam;exec;task;help;create'= {
        }
        &'agentteam;exec;task;help;update'= {
        }
        &'agentteam;exec;task;help;set_claim'= {
        }
        &'agentteam;exec;task;help;checkpoint'= {
        }
        &'agentteam;exec;task;help;delete'= {
        }
        &'agentteam;exec;task;help;help'= {
        }
        &'agentteam;exec;help'= {
            cand task 'Actions of the `task` domain'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'agentteam;exec;help;task'= {
            cand list 'Browse or search the tasks of one board.'
            cand get 'Read one task in detail.'
            cand create 'Create tasks or subtasks on a board.'
            cand update 'Change a task''s fields or status.'
            cand set_claim 'Claim or release tasks for the calling agent.'
            cand checkpoint 'Append a durable checkpoint to a task.'
            cand delete 'Permanently delete a task the agent created.'
        }
        &'agentteam;exec;help;task;list'= {
        }
        &'agentteam;exec;help;task;get'= {
        }
        &'agentteam;exec;help;task;create'= {
        }
        &'agentteam;exec;help;task;update'= {
        }
        &'agentteam;exec;help;task;set_claim'= {
        }
        &'agentteam;exec;help;task;checkpoint'= {
        }
        &'agentteam;exec;help;task;delete'= {
        }
        &'agentteam;exec;help;help'= {
        }
        &'agentteam;auth'= {
            cand --profile 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]'
            cand --timeout 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]'
            cand --retries 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]'
            cand --format 'Output format [default: text on a terminal, json otherwise]'
            cand -v 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand --verbose 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand login 'Save a profile: API URL, workspace, agent, and a token and/or a credential process'
            cand status 'Show the selected profile as JSON, token redacted'
            cand logout 'Remove the selected profile'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'agentteam;auth;login'= {
            cand --api-url 'Base URL of the Agent Runtime API, e.g. http://127.0.0.1:8787 [required for a new profile; default: the profile''s]'
            cand --workspace 'Workspace id [required for a new profile; default: the profile''s]'
            cand --agent 'Agent id [required for a new profile; default: the profile''s]'
            cand --max-permission 'Cap the profile at this permission class: actions above it are refused before sending [default: the profile''s cap; destructive, no cap, for a new profile]'
            cand --credential-process 'Command line (POSIX quoting), or a JSON list of its words, that prints a fresh token as JSON'
            cand --token 'Refused: a token in argv is readable by other users; use --token-stdin'
            cand --profile 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]'
            cand --timeout 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]'
            cand --retries 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]'
            cand --format 'Output format [default: text on a terminal, json otherwise]'
            cand --token-stdin 'Read the agent''s token from stdin'
            cand -v 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand --verbose 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'agentteam;auth;status'= {
            cand --profile 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]'
            cand --timeout 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]'
            cand --retries 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]'
            cand --format 'Output format [default: text on a terminal, json otherwise]'
            cand -v 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand --verbose 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'agentteam;auth;logout'= {
            cand --profile 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]'
            cand --timeout 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]'
            cand --retries 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]'
            cand --format 'Output format [default: text on a terminal, json otherwise]'
            cand -v 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand --verbose 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'agentteam;auth;help'= {
            cand login 'Save a profile: API URL, workspace, agent, and a token and/or a credential process'
            cand status 'Show the selected profile as JSON, token redacted'
            cand logout 'Remove the selected profile'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'agentteam;auth;help;login'= {
        }
        &'agentteam;auth;help;status'= {
        }
        &'agentteam;auth;help;logout'= {
        }
        &'agentteam;auth;help;help'= {
        }
        &'agentteam;completions'= {
            cand --profile 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]'
            cand --timeout 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]'
            cand --retries 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]'
            cand --format 'Output format [default: text on a terminal, json otherwise]'
            cand -v 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand --verbose 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'agentteam;help'= {
            cand exec 'Run a registered action: `agentteam exec <domain> <action> -`'
            cand auth 'Manage credential profiles (workspace, agent, token)'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'agentteam;help;exec'= {
            cand task 'Actions of the `task` domain'
        }
        &'agentteam;help;exec;task'= {
            cand list 'Browse or search the tasks of one board.'
            cand get 'Read one task in detail.'
            cand create 'Create tasks or subtasks on a board.'
            cand update 'Change a task''s fields or status.'
            cand set_claim 'Claim or release tasks for the calling agent.'
            cand checkpoint 'Append a durable checkpoint to a task.'
            cand delete 'Permanently delete a task the agent created.'
        }
        &'agentteam;help;exec;task;list'= {
        }
        &'agentteam;help;exec;task;get'= {
        }
        &'agentteam;help;exec;task;create'= {
        }
        &'agentteam;help;exec;task;update'= {
        }
        &'agentteam;help;exec;task;set_claim'= {
        }
        &'agentteam;help;exec;task;checkpoint'= {
        }
        &'agentteam;help;exec;task;delete'= {
        }
        &'agentteam;help;auth'= {
            cand login 'Save a profile: API URL, workspace, agent, and a token and/or a credential process'
            cand status 'Show the selected profile as JSON, token redacted'
            cand logout 'Remove the selected profile'
        }
        &'agentteam;help;auth;login'= {
        }
        &'agentteam;help;auth;status'= {
        }
        &'agentteam;help;auth;logout'= {
        }
        &'agentteam;help;completions'= {
        }
        &'agentteam;help;help'= {
        }
    ]
    $completions[$command]
}
