
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'agentteam' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'agentteam'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'agentteam' {
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, json otherwise]')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('exec', 'exec', [CompletionResultType]::ParameterValue, 'Run a registered action: `agentteam exec <domain> <action> -`')
            [CompletionResult]::new('auth', 'auth', [CompletionResultType]::ParameterValue, 'Manage credential profiles (workspace, agent, token)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentteam;exec' {
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, json otherwise]')
            [CompletionResult]::new('--catalog', '--catalog', [CompletionResultType]::ParameterName, 'Print the registry as JSON: every action, its metadata, examples and both schemas')
            [CompletionResult]::new('--full', '--full', [CompletionResultType]::ParameterName, 'With --catalog: also the error schema (the whole registry)')
            [CompletionResult]::new('--error-schema', '--error-schema', [CompletionResultType]::ParameterName, 'Print the JSON Schema of the error document, with every error code')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('task', 'task', [CompletionResultType]::ParameterValue, 'Actions of the `task` domain')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentteam;exec;task' {
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, json otherwise]')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Browse or search the tasks of one board.')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Read one task in detail.')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create tasks or subtasks on a board.')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change a task''s fields or status.')
            [CompletionResult]::new('set_claim', 'set_claim', [CompletionResultType]::ParameterValue, 'Claim or release tasks for the calling agent.')
            [CompletionResult]::new('checkpoint', 'checkpoint', [CompletionResultType]::ParameterValue, 'Append a durable checkpoint to a task.')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Permanently delete a task the agent created.')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentteam;exec;task;list' {
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'With --batch: requests in flight at once, 1 to 64 [default: 4]')
            [CompletionResult]::new('--max-items', '--max-items', [CompletionResultType]::ParameterName, 'With --paginate: stop after N items and name the cursor that goes on (on stderr) [default: no limit]')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, json otherwise]')
            [CompletionResult]::new('--input-schema', '--input-schema', [CompletionResultType]::ParameterName, 'Print the input JSON Schema and exit (INPUT, if given, is not read)')
            [CompletionResult]::new('--output-schema', '--output-schema', [CompletionResultType]::ParameterName, 'Print the JSON Schema of the success document and exit (INPUT is not read)')
            [CompletionResult]::new('--example', '--example', [CompletionResultType]::ParameterName, 'Print a valid example input (the first) and exit (INPUT is not read)')
            [CompletionResult]::new('--examples', '--examples', [CompletionResultType]::ParameterName, 'Print every example as a JSON array of {description, input, command} and exit')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Validate and resolve credentials, print the request that would be sent (token redacted, `data.dry_run: true`), send nothing; with --batch, a dry run per line')
            [CompletionResult]::new('--batch', '--batch', [CompletionResultType]::ParameterName, 'Read newline-delimited JSON objects; print one JSON result line per input line, in input order')
            [CompletionResult]::new('--paginate', '--paginate', [CompletionResultType]::ParameterName, 'Follow next_cursor to the end: each item as one JSON line, or with --format text (the terminal default) one table, page by page')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentteam;exec;task;get' {
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'With --batch: requests in flight at once, 1 to 64 [default: 4]')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, json otherwise]')
            [CompletionResult]::new('--input-schema', '--input-schema', [CompletionResultType]::ParameterName, 'Print the input JSON Schema and exit (INPUT, if given, is not read)')
            [CompletionResult]::new('--output-schema', '--output-schema', [CompletionResultType]::ParameterName, 'Print the JSON Schema of the success document and exit (INPUT is not read)')
            [CompletionResult]::new('--example', '--example', [CompletionResultType]::ParameterName, 'Print a valid example input (the first) and exit (INPUT is not read)')
            [CompletionResult]::new('--examples', '--examples', [CompletionResultType]::ParameterName, 'Print every example as a JSON array of {description, input, command} and exit')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Validate and resolve credentials, print the request that would be sent (token redacted, `data.dry_run: true`), send nothing; with --batch, a dry run per line')
            [CompletionResult]::new('--batch', '--batch', [CompletionResultType]::ParameterName, 'Read newline-delimited JSON objects; print one JSON result line per input line, in input order')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentteam;exec;task;create' {
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'With --batch: requests in flight at once, 1 to 64 [default: 4]')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, json otherwise]')
            [CompletionResult]::new('--input-schema', '--input-schema', [CompletionResultType]::ParameterName, 'Print the input JSON Schema and exit (INPUT, if given, is not read)')
            [CompletionResult]::new('--output-schema', '--output-schema', [CompletionResultType]::ParameterName, 'Print the JSON Schema of the success document and exit (INPUT is not read)')
            [CompletionResult]::new('--example', '--example', [CompletionResultType]::ParameterName, 'Print a valid example input (the first) and exit (INPUT is not read)')
            [CompletionResult]::new('--examples', '--examples', [CompletionResultType]::ParameterName, 'Print every example as a JSON array of {description, input, command} and exit')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Validate and resolve credentials, print the request that would be sent (token redacted, `data.dry_run: true`), send nothing; with --batch, a dry run per line')
            [CompletionResult]::new('--batch', '--batch', [CompletionResultType]::ParameterName, 'Read newline-delimited JSON objects; print one JSON result line per input line, in input order')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentteam;exec;task;update' {
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'With --batch: requests in flight at once, 1 to 64 [default: 4]')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, json otherwise]')
            [CompletionResult]::new('--input-schema', '--input-schema', [CompletionResultType]::ParameterName, 'Print the input JSON Schema and exit (INPUT, if given, is not read)')
            [CompletionResult]::new('--output-schema', '--output-schema', [CompletionResultType]::ParameterName, 'Print the JSON Schema of the success document and exit (INPUT is not read)')
            [CompletionResult]::new('--example', '--example', [CompletionResultType]::ParameterName, 'Print a valid example input (the first) and exit (INPUT is not read)')
            [CompletionResult]::new('--examples', '--examples', [CompletionResultType]::ParameterName, 'Print every example as a JSON array of {description, input, command} and exit')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Validate and resolve credentials, print the request that would be sent (token redacted, `data.dry_run: true`), send nothing; with --batch, a dry run per line')
            [CompletionResult]::new('--batch', '--batch', [CompletionResultType]::ParameterName, 'Read newline-delimited JSON objects; print one JSON result line per input line, in input order')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentteam;exec;task;set_claim' {
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'With --batch: requests in flight at once, 1 to 64 [default: 4]')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, json otherwise]')
            [CompletionResult]::new('--input-schema', '--input-schema', [CompletionResultType]::ParameterName, 'Print the input JSON Schema and exit (INPUT, if given, is not read)')
            [CompletionResult]::new('--output-schema', '--output-schema', [CompletionResultType]::ParameterName, 'Print the JSON Schema of the success document and exit (INPUT is not read)')
            [CompletionResult]::new('--example', '--example', [CompletionResultType]::ParameterName, 'Print a valid example input (the first) and exit (INPUT is not read)')
            [CompletionResult]::new('--examples', '--examples', [CompletionResultType]::ParameterName, 'Print every example as a JSON array of {description, input, command} and exit')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Validate and resolve credentials, print the request that would be sent (token redacted, `data.dry_run: true`), send nothing; with --batch, a dry run per line')
            [CompletionResult]::new('--batch', '--batch', [CompletionResultType]::ParameterName, 'Read newline-delimited JSON objects; print one JSON result line per input line, in input order')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentteam;exec;task;checkpoint' {
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'With --batch: requests in flight at once, 1 to 64 [default: 1, so appends are stored in the input''s order]')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, json otherwise]')
            [CompletionResult]::new('--input-schema', '--input-schema', [CompletionResultType]::ParameterName, 'Print the input JSON Schema and exit (INPUT, if given, is not read)')
            [CompletionResult]::new('--output-schema', '--output-schema', [CompletionResultType]::ParameterName, 'Print the JSON Schema of the success document and exit (INPUT is not read)')
            [CompletionResult]::new('--example', '--example', [CompletionResultType]::ParameterName, 'Print a valid example input (the first) and exit (INPUT is not read)')
            [CompletionResult]::new('--examples', '--examples', [CompletionResultType]::ParameterName, 'Print every example as a JSON array of {description, input, command} and exit')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Validate and resolve credentials, print the request that would be sent (token redacted, `data.dry_run: true`), send nothing; with --batch, a dry run per line')
            [CompletionResult]::new('--batch', '--batch', [CompletionResultType]::ParameterName, 'Read newline-delimited JSON objects; print one JSON result line per input line, in input order')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentteam;exec;task;delete' {
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'With --batch: requests in flight at once, 1 to 64 [default: 4]')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, json otherwise]')
            [CompletionResult]::new('--input-schema', '--input-schema', [CompletionResultType]::ParameterName, 'Print the input JSON Schema and exit (INPUT, if given, is not read)')
            [CompletionResult]::new('--output-schema', '--output-schema', [CompletionResultType]::ParameterName, 'Print the JSON Schema of the success document and exit (INPUT is not read)')
            [CompletionResult]::new('--example', '--example', [CompletionResultType]::ParameterName, 'Print a valid example input (the first) and exit (INPUT is not read)')
            [CompletionResult]::new('--examples', '--examples', [CompletionResultType]::ParameterName, 'Print every example as a JSON array of {description, input, command} and exit')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Validate and resolve credentials, print the request that would be sent (token redacted, `data.dry_run: true`), send nothing; with --batch, a dry run per line')
            [CompletionResult]::new('--batch', '--batch', [CompletionResultType]::ParameterName, 'Read newline-delimited JSON objects; print one JSON result line per input line, in input order')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentteam;exec;task;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Browse or search the tasks of one board.')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Read one task in detail.')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create tasks or subtasks on a board.')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change a task''s fields or status.')
            [CompletionResult]::new('set_claim', 'set_claim', [CompletionResultType]::ParameterValue, 'Claim or release tasks for the calling agent.')
            [CompletionResult]::new('checkpoint', 'checkpoint', [CompletionResultType]::ParameterValue, 'Append a durable checkpoint to a task.')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Permanently delete a task the agent created.')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentteam;exec;task;help;list' {
            break
        }
        'agentteam;exec;task;help;get' {
            break
        }
        'agentteam;exec;task;help;create' {
            break
        }
        'agentteam;exec;task;help;update' {
            break
        }
        'agentteam;exec;task;help;set_claim' {
            break
        }
        'agentteam;exec;task;help;checkpoint' {
            break
        }
        'agentteam;exec;task;help;delete' {
            break
        }
        'agentteam;exec;task;help;help' {
            break
        }
        'agentteam;exec;help' {
            [CompletionResult]::new('task', 'task', [CompletionResultType]::ParameterValue, 'Actions of the `task` domain')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentteam;exec;help;task' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Browse or search the tasks of one board.')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Read one task in detail.')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create tasks or subtasks on a board.')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change a task''s fields or status.')
            [CompletionResult]::new('set_claim', 'set_claim', [CompletionResultType]::ParameterValue, 'Claim or release tasks for the calling agent.')
            [CompletionResult]::new('checkpoint', 'checkpoint', [CompletionResultType]::ParameterValue, 'Append a durable checkpoint to a task.')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Permanently delete a task the agent created.')
            break
        }
        'agentteam;exec;help;task;list' {
            break
        }
        'agentteam;exec;help;task;get' {
            break
        }
        'agentteam;exec;help;task;create' {
            break
        }
        'agentteam;exec;help;task;update' {
            break
        }
        'agentteam;exec;help;task;set_claim' {
            break
        }
        'agentteam;exec;help;task;checkpoint' {
            break
        }
        'agentteam;exec;help;task;delete' {
            break
        }
        'agentteam;exec;help;help' {
            break
        }
        'agentteam;auth' {
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, json otherwise]')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('login', 'login', [CompletionResultType]::ParameterValue, 'Save a profile: API URL, workspace, agent, and a token and/or a credential process')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the selected profile as JSON, token redacted')
            [CompletionResult]::new('logout', 'logout', [CompletionResultType]::ParameterValue, 'Remove the selected profile')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentteam;auth;login' {
            [CompletionResult]::new('--api-url', '--api-url', [CompletionResultType]::ParameterName, 'Base URL of the Agent Runtime API, e.g. http://127.0.0.1:8787 [required for a new profile; default: the profile''s]')
            [CompletionResult]::new('--workspace', '--workspace', [CompletionResultType]::ParameterName, 'Workspace id [required for a new profile; default: the profile''s]')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Agent id [required for a new profile; default: the profile''s]')
            [CompletionResult]::new('--max-permission', '--max-permission', [CompletionResultType]::ParameterName, 'Cap the profile at this permission class: actions above it are refused before sending [default: the profile''s cap; destructive, no cap, for a new profile]')
            [CompletionResult]::new('--credential-process', '--credential-process', [CompletionResultType]::ParameterName, 'Command line (POSIX quoting), or a JSON list of its words, that prints a fresh token as JSON')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Refused: a token in argv is readable by other users; use --token-stdin')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, json otherwise]')
            [CompletionResult]::new('--token-stdin', '--token-stdin', [CompletionResultType]::ParameterName, 'Read the agent''s token from stdin')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentteam;auth;status' {
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, json otherwise]')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentteam;auth;logout' {
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, json otherwise]')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentteam;auth;help' {
            [CompletionResult]::new('login', 'login', [CompletionResultType]::ParameterValue, 'Save a profile: API URL, workspace, agent, and a token and/or a credential process')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the selected profile as JSON, token redacted')
            [CompletionResult]::new('logout', 'logout', [CompletionResultType]::ParameterValue, 'Remove the selected profile')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentteam;auth;help;login' {
            break
        }
        'agentteam;auth;help;status' {
            break
        }
        'agentteam;auth;help;logout' {
            break
        }
        'agentteam;auth;help;help' {
            break
        }
        'agentteam;completions' {
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Credential profile to use [env: AGENTTEAM_PROFILE; default: the store''s default profile]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds one HTTP attempt may take, connection included, 1 to 3600 [env: AGENTTEAM_TIMEOUT; default: 30]')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Extra attempts after a transient failure, only where a route''s help says it retries them, 0 to 10 [default: 2]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: text on a terminal, json otherwise]')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Diagnostics on stderr (requests, statuses, retries); tokens are always redacted')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'agentteam;help' {
            [CompletionResult]::new('exec', 'exec', [CompletionResultType]::ParameterValue, 'Run a registered action: `agentteam exec <domain> <action> -`')
            [CompletionResult]::new('auth', 'auth', [CompletionResultType]::ParameterValue, 'Manage credential profiles (workspace, agent, token)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'agentteam;help;exec' {
            [CompletionResult]::new('task', 'task', [CompletionResultType]::ParameterValue, 'Actions of the `task` domain')
            break
        }
        'agentteam;help;exec;task' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Browse or search the tasks of one board.')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Read one task in detail.')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create tasks or subtasks on a board.')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change a task''s fields or status.')
            [CompletionResult]::new('set_claim', 'set_claim', [CompletionResultType]::ParameterValue, 'Claim or release tasks for the calling agent.')
            [CompletionResult]::new('checkpoint', 'checkpoint', [CompletionResultType]::ParameterValue, 'Append a durable checkpoint to a task.')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Permanently delete a task the agent created.')
            break
        }
        'agentteam;help;exec;task;list' {
            break
        }
        'agentteam;help;exec;task;get' {
            break
        }
        'agentteam;help;exec;task;create' {
            break
        }
        'agentteam;help;exec;task;update' {
            break
        }
        'agentteam;help;exec;task;set_claim' {
            break
        }
        'agentteam;help;exec;task;checkpoint' {
            break
        }
        'agentteam;help;exec;task;delete' {
            break
        }
        'agentteam;help;auth' {
            [CompletionResult]::new('login', 'login', [CompletionResultType]::ParameterValue, 'Save a profile: API URL, workspace, agent, and a token and/or a credential process')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the selected profile as JSON, token redacted')
            [CompletionResult]::new('logout', 'logout', [CompletionResultType]::ParameterValue, 'Remove the selected profile')
            break
        }
        'agentteam;help;auth;login' {
            break
        }
        'agentteam;help;auth;status' {
            break
        }
        'agentteam;help;auth;logout' {
            break
        }
        'agentteam;help;completions' {
            break
        }
        'agentteam;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
