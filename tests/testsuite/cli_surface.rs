//! `auth`, help, schemas, the catalog and process behaviour of the real binary.

use std::os::unix::fs::PermissionsExt;

use agentteam::registry::ACTIONS;
use serde_json::json;

use crate::support::cli::Cli;
use crate::support::runtime::Runtime;

#[test]
fn login_status_logout_round_trip() {
    let cli = Cli::new();
    let run = cli.run(
        &[
            "auth",
            "login",
            "--api-url",
            "http://127.0.0.1:9/",
            "--workspace",
            "ws_1",
            "--agent",
            "ag_1",
            "--token-stdin",
        ],
        Some("at_secret\n"),
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(!run.stdout.contains("at_secret"));
    assert_eq!(run.stderr, "", "loopback http is no cleartext risk");
    let status = cli.run(&["auth", "status"], None).json();
    assert_eq!(status["data"]["profile"], "default");
    assert_eq!(status["data"]["api_url"], "http://127.0.0.1:9");
    assert_eq!(status["data"]["workspace_id"], "ws_1");
    assert_eq!(status["data"]["token"], "<redacted>");
    let meta = std::fs::metadata(cli.config_dir().join("credentials.json")).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert_eq!(
        std::fs::metadata(cli.config_dir())
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o700
    );

    // A second, named profile selected by flag or environment.
    let run = cli.run(
        &[
            "--profile",
            "ci",
            "auth",
            "login",
            "--api-url",
            "http://h:1",
            "--workspace",
            "ws_2",
            "--agent",
            "ag_2",
            "--credential-process",
            "printf '{\"token\":\"t\"}'",
        ],
        None,
    );
    assert_eq!(run.code, 0, "{run:?}");
    // Plain http to another host is saved, with a warning that the token
    // would cross the network unencrypted.
    assert!(
        run.stderr
            .starts_with("agentteam: warning: http://h:1 is plain http")
            && run.stderr.contains("unencrypted"),
        "{}",
        run.stderr
    );
    // A slip of --profile names the profiles there are, nearest first.
    let slip = cli.run(
        &["--profile", "cii", "exec", "task", "list", "-"],
        Some(r#"{"channel": "eng"}"#),
    );
    assert_eq!(
        (slip.code, slip.error_code().as_str()),
        (3, "credentials_missing"),
        "{slip:?}"
    );
    let error = slip.json()["error"].clone();
    assert_eq!(
        error["candidates"][0],
        json!({"field": "profile", "value": "ci"}),
        "{error}"
    );
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("`--profile ci`"),
        "{error}"
    );
    // Only the program: its arguments may hold a secret.
    let ci = cli.run(&["auth", "status", "--profile", "ci"], None);
    assert_eq!(ci.json()["data"]["credential_process"], json!("printf"));
    assert!(!ci.stdout.contains(r#"\"t\""#), "{}", ci.stdout);
    let mut with_env = Cli {
        home: tempfile::tempdir().unwrap(),
        config: cli.config.clone(),
        env: vec![("AGENTTEAM_PROFILE".into(), "ci".into())],
    };
    assert_eq!(
        with_env.run(&["auth", "status"], None).json()["data"]["workspace_id"],
        "ws_2"
    );
    with_env.env.clear();

    let out = cli.run(&["auth", "logout", "--profile", "ci"], None).json();
    assert_eq!(out["data"], json!({"profile": "ci", "removed": true}));
    assert_eq!(
        cli.run(&["auth", "status", "--profile", "ci"], None).code,
        3
    );
    assert_eq!(
        cli.run(&["auth", "status"], None).code,
        0,
        "other profiles survive"
    );
    // Logging out of a profile that is not there removes nothing and
    // writes nothing: no config dir, lock or store is made for it.
    let fresh = Cli::new();
    let out = fresh.run(&["auth", "logout", "--profile", "ci"], None);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.json()["data"],
        json!({"profile": "ci", "removed": false})
    );
    assert!(!fresh.config_dir().exists(), "{out:?}");
}

#[test]
fn a_token_in_argv_is_refused() {
    let cli = Cli::new();
    const LOGIN: [&str; 8] = [
        "auth",
        "login",
        "--api-url",
        "http://h:1",
        "--workspace",
        "w",
        "--agent",
        "a",
    ];
    let login = |more: &[&str]| cli.run(&[&LOGIN[..], more].concat(), None);
    let run = login(&["--token", "at_secret"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.error_code(), "usage_error");
    assert!(!cli.config_dir().join("credentials.json").exists());
    // Typed where no command takes a word, a token is not repeated back:
    // under `auth` never, elsewhere not when it could be a secret.
    let token = "at_6aEU56b_EptJ67Q_LS32i4Yb";
    let stray_short = [&LOGIN[..], &["at_short"]].concat();
    let stray = [&LOGIN[..], &[token]].concat();
    // Beside path characters, and a dotted bearer token (a JWT's parts).
    let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
    let (slashed, in_path) = (format!("{token}/"), format!("./{token}.json"));
    for args in [
        &["--timeout", &slashed, "auth", "status"][..],
        &["--profile", &slashed, "auth", "status"][..],
        &["exec", "task", "list", &in_path][..],
        &["exec", "task", &slashed][..],
        &["--profile", jwt, "auth", "status"][..],
        &["exec", "task", "list", jwt][..],
    ] {
        let run = cli.run(args, None);
        for secret in [
            "6aEU56b_EptJ67Q",
            "dozjgNryP4J3jVmNHl0w5N",
            "eyJzdWIiOiIxMjM0NTY3ODkwIn0",
        ] {
            assert!(
                !run.stdout.contains(secret) && !run.stderr.contains(secret),
                "{args:?}: {run:?}"
            );
        }
    }
    for args in [
        &stray_short[..],
        &stray[..],
        &["auth", "status", token][..],
        &["exec", "task", "get", "-", token][..],
        // In a command's place, and as an input file that is not there.
        &["auth", token][..],
        &["exec", "task", token][..],
        &[token][..],
        &["exec", "task", "list", token][..],
        // As an option's value, and as a profile's name.
        &["auth", "login", &format!("--token-stdin={token}")][..],
        &["--timeout", token, "auth", "status"][..],
        &["completions", token][..],
        &["--profile", token, "auth", "status"][..],
    ] {
        let run = cli.run(args, None);
        assert!(
            run.code == 2 || run.error_code() == "credentials_missing",
            "{args:?}: {run:?}"
        );
        for secret in ["at_short", token] {
            assert!(
                !run.stdout.contains(secret) && !run.stderr.contains(secret),
                "{args:?}: {run:?}"
            );
        }
        assert!(run.stdout.contains("<redacted>"), "{args:?}: {run:?}");
    }
    // A path is no token: a missing input file is named, dated names too.
    for path in [
        "/tmp/no/such/tasks-2024.json",
        "/tmp/no/such/tasks-2024-release.json",
        "sprint-backlog-2024-q3",
    ] {
        let run = cli.run(&["exec", "task", "list", path], None);
        assert!(run.stdout.contains(path), "{run:?}");
    }
    // Nor does the runtime repeat a token typed on its command line.
    for args in [
        &["token", "revoke", token][..],
        &["--bogus", token][..],
        &["--bogus", &slashed][..],
    ] {
        let out = std::process::Command::new(crate::support::runtime::BIN)
            .args(args)
            .env("AGENTTEAM_RUNTIME_DB", cli.home.path().join("rt.db"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(
            !stdout.contains(token) && !stderr.contains(token),
            "{args:?}: {stdout} {stderr}"
        );
    }
    // A mistyped command is no secret: shown, with the one meant.
    let run = cli.run(&["auth", "lgin"], None);
    assert!(
        run.stdout.contains("'lgin'") && run.stdout.contains("'login'"),
        "{run:?}"
    );
    // A credential process's words given unquoted are told to be quoted.
    let run = login(&["--credential-process", "/bin/cred", "--team", "x"]);
    assert_eq!(run.code, 2, "{run:?}");
    let run = login(&["--credential-process", "/bin/cred", "arg"]);
    assert!(run.stdout.contains("one quoted argument"), "{run:?}");
    assert!(!cli.config_dir().join("credentials.json").exists());
}

#[test]
fn login_validates_its_inputs() {
    let cli = Cli::new();
    let login = |url: &str, workspace: &str, agent: &str| {
        cli.run(
            &[
                "auth",
                "login",
                "--api-url",
                url,
                "--workspace",
                workspace,
                "--agent",
                agent,
                "--token-stdin",
            ],
            Some("at_token_value_1"),
        )
    };
    for url in ["ftp://h", "not a url", "http://user:pw@h:1"] {
        let run = login(url, "w", "a");
        assert_eq!(run.code, 2, "{url}: {run:?}");
    }
    let run = cli.run(
        &[
            "auth",
            "login",
            "--api-url",
            "http://h:1",
            "--workspace",
            "w",
            "--agent",
            "a",
        ],
        None,
    );
    assert_eq!((run.code, run.error_code().as_str()), (2, "usage_error"));
    // An id is a segment of every request's path: a member ref, or a value
    // no path segment can be, is refused before anything is stored.
    for (flag, value, says) in [
        ("--agent", "@demo-peer", "not a ref like `@demo-peer`"),
        ("--agent", "x y", "no blanks"),
        ("--agent", "..", "not `.` or `..`"),
        ("--workspace", "ws/1", "no blanks, `/`"),
    ] {
        let (workspace, agent) = if flag == "--agent" {
            ("ws_1", value)
        } else {
            (value, "ag_1")
        };
        let run = login("http://h:1", workspace, agent);
        assert_eq!(
            (run.code, run.error_code().as_str()),
            (2, "invalid_input"),
            "{value}: {run:?}"
        );
        assert!(run.stdout.contains(says), "{value}: {}", run.stdout);
    }
    assert!(!cli.config_dir().join("credentials.json").exists());
}

#[test]
fn a_store_others_can_read_is_refused() {
    let cli = Cli::new();
    cli.login("http://127.0.0.1:9", "at_secret", None);
    std::fs::set_permissions(
        cli.config_dir().join("credentials.json"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let run = cli.exec("task", "get", r#"{"channel":"eng","number":1}"#, &[]);
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (3, "credential_store_insecure")
    );
    assert!(
        run.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("chmod 600")
    );
}

/// Tests run as root here: a store given to `nobody` must be refused even to
/// root, and its credential process never run.
#[test]
fn a_store_of_another_user_is_refused_even_to_root() {
    // SAFETY: geteuid(2) has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: only root can give a store to another user");
        return;
    }
    let cli = Cli::new();
    let ran = cli.home.path().join("ran");
    let process = cli.script(
        "cred.sh",
        &format!("touch {}; echo '{{\"token\": \"at_x\"}}'", ran.display()),
    );
    let run = cli.run(
        &[
            "auth",
            "login",
            "--api-url",
            "http://127.0.0.1:9",
            "--workspace",
            "ws_test",
            "--agent",
            "ag_test",
            "--credential-process",
            &process,
        ],
        None,
    );
    assert_eq!(run.code, 0, "{run:?}");
    let store = cli.config_dir().join("credentials.json");
    for path in [&store, &cli.config_dir().to_path_buf()] {
        std::os::unix::fs::chown(path, Some(65534), None).unwrap();
        let run = cli.exec("task", "get", r#"{"channel":"eng","number":1}"#, &[]);
        assert_eq!(
            (run.code, run.error_code().as_str()),
            (3, "credential_store_insecure"),
            "{}: {run:?}",
            path.display()
        );
        assert!(run.stdout.contains("uid 65534"), "{}", run.stdout);
        assert!(!ran.exists(), "root ran another user's credential process");
        std::os::unix::fs::chown(path, Some(0), None).unwrap();
    }
}

#[test]
fn a_shared_config_directory_is_refused_and_left_as_it_is() {
    for mode in [0o1777, 0o2775] {
        let mut cli = Cli::new();
        cli.config = cli.home.path().join("shared");
        std::fs::create_dir(&cli.config).unwrap();
        std::fs::set_permissions(&cli.config, std::fs::Permissions::from_mode(mode)).unwrap();
        let run = cli.run(
            &[
                "auth",
                "login",
                "--api-url",
                "http://127.0.0.1:9",
                "--workspace",
                "w",
                "--agent",
                "a",
                "--token-stdin",
            ],
            Some("at_secret"),
        );
        assert_eq!(
            (run.code, run.error_code().as_str()),
            (3, "credential_store_insecure"),
            "{mode:o}: {run:?}"
        );
        let message = run.json()["error"]["message"].as_str().unwrap().to_string();
        assert!(
            message.contains("AGENTTEAM_CONFIG_DIR") && message.contains("chmod 700"),
            "{message}"
        );
        let meta = std::fs::metadata(&cli.config).unwrap();
        assert_eq!(meta.permissions().mode() & 0o7777, mode, "chmodded");
        assert!(!cli.config.join("credentials.json").exists());
    }
}

#[test]
fn a_fifo_in_place_of_the_store_is_refused_at_once() {
    let cli = Cli::new();
    std::fs::create_dir(cli.config_dir()).unwrap();
    std::fs::set_permissions(cli.config_dir(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let fifo = std::ffi::CString::new(
        cli.config_dir()
            .join("credentials.json")
            .into_os_string()
            .into_encoded_bytes(),
    )
    .unwrap();
    // SAFETY: mkfifo(3) with a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let limit = Some(std::time::Duration::from_secs(30));
    for args in [&["auth", "status"][..], &["exec", "task", "get", "-"][..]] {
        let run = cli.run_within(args, Some(r#"{"channel":"eng","number":1}"#), limit);
        assert_eq!(
            (run.code, run.error_code().as_str()),
            (3, "credential_store_invalid"),
            "{args:?}: {run:?}"
        );
        assert!(run.stdout.contains("not a regular file"), "{}", run.stdout);
    }
}

/// A profile written without `workspace_id` (hand-edited, or by another
/// tool) is incomplete, not a broken store: selecting it says what it
/// lacks, and the other profiles still work.
#[test]
fn a_profile_missing_a_field_spoils_only_itself() {
    let server =
        crate::support::recorder::Recorder::start(vec![crate::support::recorder::Reply::json(
            200,
            serde_json::json!({"items": []}),
        )]);
    let cli = Cli::new();
    cli.write_store(&serde_json::json!({
        "default_profile": "whole",
        "profiles": {
            "partial": {"api_url": server.url, "agent_id": "ag_1", "token": "at_partial_token_1"},
            "nulled": {"api_url": server.url, "workspace_id": null, "agent_id": "ag_1",
                       "token": "at_nulled_token_1"},
            "whole": {"api_url": server.url, "workspace_id": "ws_1", "agent_id": "ag_1",
                      "token": "at_whole_token_1"},
            "empty": {"api_url": server.url, "workspace_id": "ws_1", "agent_id": "ag_1",
                      "token": ""},
            "blank": {"api_url": server.url, "workspace_id": "ws_1", "agent_id": "ag_1",
                      "token": "  "}
        }
    }));
    let input = Some(r#"{"channel":"eng"}"#);
    let whole = cli.run(&["exec", "task", "list", "-", "--profile", "whole"], input);
    assert_eq!(whole.code, 0, "{whole:?}");
    let partial = cli.run(
        &["exec", "task", "list", "-", "--profile", "partial"],
        input,
    );
    assert_eq!(
        (partial.code, partial.error_code().as_str()),
        (3, "credentials_missing"),
        "{partial:?}"
    );
    assert!(
        partial.stdout.contains("lacks workspace_id"),
        "{}",
        partial.stdout
    );
    // The commands it names fix this profile, not the default one.
    for fix in [
        "`agentteam --profile partial auth login`",
        "`agentteam-runtime quickstart --profile partial`",
    ] {
        assert!(partial.stdout.contains(fix), "{fix}: {}", partial.stdout);
    }
    let nulled = cli.run(&["exec", "task", "list", "-", "--profile", "nulled"], input);
    assert_eq!(nulled.error_code(), "credentials_missing", "{nulled:?}");
    // An empty token is no token: not sent to be refused as a 401.
    for name in ["empty", "blank"] {
        let run = cli.run(&["exec", "task", "list", "-", "--profile", name], input);
        assert_eq!(
            (run.code, run.error_code().as_str()),
            (3, "credentials_missing"),
            "{name}: {run:?}"
        );
        assert!(run.stdout.contains("lacks token"), "{}", run.stdout);
    }
    assert_eq!(server.requests().len(), 1);
}

/// A store a newer version wrote (a profile field and a top-level key this
/// one does not know) still serves the profiles this version reads; the
/// one it cannot is refused alone, with the commands that mend it, and
/// `auth logout` of it mends it without losing what else was written.
#[test]
fn a_profile_this_version_cannot_read_spoils_only_itself() {
    let server =
        crate::support::recorder::Recorder::start(vec![crate::support::recorder::Reply::json(
            200,
            serde_json::json!({"items": []}),
        )]);
    let cli = Cli::new();
    cli.write_store(&serde_json::json!({
        "default_profile": "whole",
        "store_version": 2,
        "profiles": {
            "whole": {"api_url": server.url, "workspace_id": "ws_1", "agent_id": "ag_1",
                      "token": "at_whole_token_1"},
            "newer": {"api_url": server.url, "workspace_id": "ws_1", "agent_id": "ag_1",
                      "token": "at_newer_token_1", "token_source": "keyring"}
        }
    }));
    let input = Some(r#"{"channel":"eng"}"#);
    let whole = cli.run(&["exec", "task", "list", "-"], input);
    assert_eq!(whole.code, 0, "{whole:?}");
    let newer = cli.run(&["exec", "task", "list", "-", "--profile", "newer"], input);
    assert_eq!(
        (newer.code, newer.error_code().as_str()),
        (3, "credential_store_invalid"),
        "{newer:?}"
    );
    assert!(
        newer.stdout.contains("unknown field `token_source`")
            && newer
                .stdout
                .contains("`agentteam --profile newer auth logout`"),
        "{}",
        newer.stdout
    );
    let status = cli.run(&["auth", "status"], None);
    assert_eq!(
        status.json()["data"]["unreadable_profiles"],
        serde_json::json!(["newer"])
    );
    let logout = cli.run(&["--profile", "newer", "auth", "logout"], None);
    assert_eq!(logout.json()["data"]["removed"], true, "{logout:?}");
    let store: serde_json::Value = serde_json::from_str(&cli.store_text()).unwrap();
    assert_eq!(store["store_version"], 2);
    assert!(store["profiles"].get("newer").is_none());
    assert_eq!(server.requests().len(), 1);
}

/// A named profile whose token has expired, with no credential process to
/// fetch another, is refused before anything is sent, and the login it
/// names is that profile's: one retry fixes it, not a login into the
/// default profile that leaves this one as it was.
#[test]
fn an_expired_token_names_the_login_of_its_own_profile() {
    let server = crate::support::recorder::Recorder::expecting_no_request();
    let cli = Cli::new();
    cli.write_store(&serde_json::json!({
        "profiles": {
            "ci bot": {"api_url": server.url, "workspace_id": "ws_1", "agent_id": "ag_1",
                       "token": "at_stale_token_1",
                       "token_expires_at": "2020-01-01T00:00:00Z"}
        }
    }));
    let run = cli.run(
        &["exec", "task", "list", "-", "--profile", "ci bot"],
        Some(r#"{"channel":"eng"}"#),
    );
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (3, "credentials_missing"),
        "{run:?}"
    );
    assert!(
        run.stdout
            .contains("run `agentteam --profile 'ci bot' auth login`"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("at_stale_token_1"), "{}", run.stdout);
}

#[test]
fn every_route_has_help_and_schemas() {
    let cli = Cli::new();
    for action in ACTIONS {
        let help = cli.run(&["exec", action.domain, action.verb, "--help"], None);
        assert_eq!(help.code, 0);
        for needle in [
            action.summary,
            "Input fields",
            "Example",
            "--examples",
            agentteam::cli::help::SHARED,
            "--input-schema",
            "--output-schema",
        ] {
            assert!(
                help.stdout.contains(needle),
                "{} --help lacks {needle}",
                action.name()
            );
        }
        let input = cli.run(
            &["exec", action.domain, action.verb, "--input-schema"],
            None,
        );
        assert_eq!(input.json(), (action.input_schema)());
        let output = cli.run(
            &["exec", action.domain, action.verb, "--output-schema"],
            None,
        );
        assert_eq!(output.json(), action.output_schema());
        // On the route as it is written with its input (`… list -`), before
        // or after it, the flags print and exit, and the input is not read.
        for args in [
            vec![action.verb, "-", "--input-schema"],
            vec![action.verb, "--input-schema", "-"],
            vec![action.verb, "-", "--output-schema"],
            vec![action.verb, "-", "--help"],
            vec![action.verb, "-", "--examples"],
        ] {
            let run = cli.run(
                &[&["exec", action.domain][..], &args].concat(),
                Some("not JSON"),
            );
            assert_eq!(run.code, 0, "{args:?}: {}", run.stdout);
        }
        let input = cli.run(
            &["exec", action.domain, action.verb, "-", "--input-schema"],
            Some("not JSON"),
        );
        assert_eq!(input.json(), (action.input_schema)());
    }
    let exec_help = cli.run(&["exec", "--help"], None).stdout;
    assert!(exec_help.contains("task"));
    let task_help = cli.run(&["exec", "task", "--help"], None).stdout;
    for action in ACTIONS {
        assert!(
            task_help.contains(action.verb),
            "exec task --help lacks {}",
            action.verb
        );
    }
}

/// An action's help fits a model's context: at most 3 KB, its field list
/// kept, and the global options and exit statuses said once, in
/// `agentteam --help`.
#[test]
fn action_help_fits_its_budget_and_leaves_globals_to_the_top() {
    let cli = Cli::new();
    let top = cli.run(&["--help"], None);
    for needle in [
        "--profile",
        "--timeout",
        "--retries",
        "--format",
        "--verbose",
        "Exit status:",
    ] {
        assert!(
            top.stdout.contains(needle),
            "agentteam --help lacks {needle}"
        );
    }
    for action in ACTIONS {
        let help = cli.run(&["exec", action.domain, action.verb, "--help"], None);
        assert_eq!(help.code, 0);
        assert!(
            help.stdout.len() <= agentteam::cli::help::HELP_BUDGET,
            "{} --help is {} bytes:\n{}",
            action.name(),
            help.stdout.len(),
            help.stdout
        );
        for (path, ..) in agentteam::cli::help::input_fields(action) {
            let (indent, name) = agentteam::cli::help::nested(&path);
            assert!(
                help.stdout.contains(&format!("\n{indent}{name} (")),
                "{} --help lacks the field {path}",
                action.name()
            );
        }
        for global in [
            "--profile <NAME>",
            "--timeout <SECONDS>",
            "--retries <N>",
            "--format <FORMAT>",
            "--verbose\n",
        ] {
            assert!(
                !help.stdout.contains(global),
                "{} --help repeats {global}",
                action.name()
            );
        }
        assert!(!help.stdout.contains("Exit status:"), "{}", action.name());
        assert!(
            !help.stdout.contains("[env: AGENTTEAM_TIMEOUT"),
            "{}",
            action.name()
        );
    }
}

/// Example lines survive copy and paste whatever the terminal's width: each
/// is a registry example on one line, in order, and its JSON parses.
#[test]
fn help_examples_are_whole_lines() {
    let mut cli = Cli::new();
    cli.env.push(("COLUMNS".into(), "40".into()));
    for action in ACTIONS {
        let help = cli.run(&["exec", action.domain, action.verb, "--help"], None);
        let lines: Vec<String> = help
            .stdout
            .lines()
            .map(str::trim_start)
            .filter(|l| l.starts_with("echo '"))
            .map(str::to_string)
            .collect();
        let expected: Vec<String> = action
            .examples
            .iter()
            .map(|e| agentteam::cli::help::example_command(action, e.input))
            .collect();
        // A page over its budget shows the first example and points to
        // `--examples` for the rest.
        assert!(
            !lines.is_empty() && expected.starts_with(&lines),
            "{}: {lines:#?}",
            action.name()
        );
        for line in lines {
            let json = line
                .strip_prefix("echo '")
                .and_then(|l| l.split_once("' | agentteam exec "))
                .map(|(json, _)| json)
                .unwrap();
            serde_json::from_str::<serde_json::Value>(json)
                .unwrap_or_else(|e| panic!("{line}: {e}"));
        }
    }
}

/// `--example` prints the first example; `--examples` prints all of them,
/// each with its description and the line that runs it.
#[test]
fn examples_prints_every_example() {
    let cli = Cli::new();
    for action in ACTIONS {
        let one = cli.run(&["exec", action.domain, action.verb, "--example"], None);
        assert_eq!(
            one.json(),
            serde_json::from_str::<serde_json::Value>(action.examples[0].input).unwrap()
        );
        let all = cli.run(&["exec", action.domain, action.verb, "--examples"], None);
        assert_eq!(all.code, 0, "{all:?}");
        let all = all.json();
        let all = all.as_array().unwrap();
        assert_eq!(all.len(), action.examples.len(), "{}", action.name());
        for (shown, example) in all.iter().zip(action.examples) {
            assert_eq!(shown["description"], example.description);
            assert_eq!(
                shown["input"],
                serde_json::from_str::<serde_json::Value>(example.input).unwrap()
            );
            assert_eq!(
                shown["command"],
                agentteam::cli::help::example_command(action, example.input)
            );
        }
    }
}

/// The catalog is every action with its metadata and both schemas
/// (product.md §3), within the definitions' budget, and names the command
/// for the error schema it leaves out; `--catalog --full` is the whole
/// registry.
#[test]
fn catalog_and_error_schema() {
    let cli = Cli::new();
    let run = cli.run(&["exec", "--catalog"], None);
    assert!(
        run.stdout.len() <= agentteam::registry::CATALOG_BUDGET,
        "--catalog is {} bytes",
        run.stdout.len()
    );
    let catalog = run.json();
    assert_eq!(catalog, agentteam::registry::compact_catalog());
    assert_eq!(catalog["actions"].as_array().unwrap().len(), ACTIONS.len());
    assert_eq!(catalog["actions"][0]["action_id"], "task.list");
    assert!(catalog.get("error_schema").is_none());
    assert_eq!(catalog["full_command"], "agentteam exec --catalog --full");
    for (action, entry) in ACTIONS.iter().zip(catalog["actions"].as_array().unwrap()) {
        assert_eq!(entry["input_schema"], action.cached_input_schema().clone());
        // The same schemas `--input-schema` and `--output-schema` print.
        let route = |flag: &str| {
            cli.run(&["exec", action.domain, action.verb, flag], None)
                .json()
        };
        assert_eq!(entry["input_schema"], route("--input-schema"));
        assert_eq!(entry["output_schema"], route("--output-schema"));
        assert!(entry["examples"].as_array().unwrap().len() == action.examples.len());
    }
    let full = cli.run(&["exec", "--catalog", "--full"], None).json();
    assert_eq!(full, agentteam::registry::catalog());
    // A route after a whole-registry flag is refused, not ignored.
    for flag in ["--catalog", "--error-schema"] {
        let run = cli.run(&["exec", flag, "task", "list", "/nonexist"], None);
        assert_eq!(
            (run.code, run.error_code().as_str()),
            (2, "usage_error"),
            "{flag}: {run:?}"
        );
        assert!(run.stdout.contains("takes no route"), "{run:?}");
    }
    assert!(full["error_schema"]["x-error-codes"].is_array());
    assert!(full["actions"][0]["output_schema"].is_object());
    let run = cli.run(&["exec", "--full"], None);
    assert_eq!((run.code, run.error_code().as_str()), (2, "usage_error"));
    let errors = cli.run(&["exec", "--error-schema"], None).json();
    assert!(
        errors["x-error-codes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["code"] == "task_not_found" && c["retryable"] == false)
    );
}

#[test]
fn usage_errors_are_json_with_exit_2() {
    let cli = Cli::new();
    for args in [
        &["exec", "task", "frobnicate", "-"][..],
        &["exec", "nodomain", "list"],
        &["exec", "task", "list", "-", "--nope"],
        &["exec", "task", "list", "--input-schema", "--output-schema"],
    ] {
        let run = cli.run(args, None);
        assert_eq!(
            (run.code, run.error_code().as_str()),
            (2, "usage_error"),
            "{args:?}"
        );
    }
}

/// A usage error says what was missing, in its one JSON document: the
/// subcommands a command takes, the arguments left out.
#[test]
fn usage_errors_name_what_is_missing() {
    let cli = Cli::new();
    let every_action = ACTIONS
        .iter()
        .map(|a| format!("`{}`", a.verb))
        .collect::<Vec<_>>()
        .join(", ");
    let domain = ACTIONS[0].domain;
    for (args, says) in [
        (
            vec![],
            "`agentteam` needs one of: `exec`, `auth`, `completions`".to_string(),
        ),
        (
            vec!["exec"],
            format!("`agentteam exec` needs one of: `{domain}` (or `--catalog`"),
        ),
        (
            vec!["exec", domain],
            format!(
                "`agentteam exec {domain}` needs one of: {every_action}; see `agentteam exec {domain} --help`."
            ),
        ),
        (
            vec!["--profile", "p", "auth"],
            "`agentteam auth` needs one of: `login`, `status`, `logout`".to_string(),
        ),
        (
            vec!["completions"],
            "the following required arguments were not provided: <shell>".to_string(),
        ),
        (
            vec![
                "auth",
                "login",
                "--workspace",
                "w",
                "--credential-process",
                "x",
            ],
            "Profile `default` is new, so it needs --api-url, --agent;".to_string(),
        ),
    ] {
        let run = cli.run(&args, None);
        assert_eq!(
            (run.code, run.error_code().as_str()),
            (2, "usage_error"),
            "{args:?}: {run:?}"
        );
        let message = run.json()["error"]["message"].as_str().unwrap().to_string();
        assert!(message.contains(&says), "{args:?}: {message}");
    }
}

#[test]
fn no_input_on_a_closed_stdin_is_invalid_json() {
    let cli = Cli::new();
    cli.login("http://127.0.0.1:9", "t", None);
    let run = cli.run(&["exec", "task", "list"], None);
    assert_eq!((run.code, run.error_code().as_str()), (2, "invalid_json"));
}

#[test]
fn a_closed_stdout_pipe_exits_quietly() {
    let cli = Cli::new();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = cli
        .command(&["exec", "--catalog"])
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// In JSON mode a failure costs an agent reading both streams one JSON
/// document on stdout and at most one stderr line of 200 bytes, which does
/// not repeat the field details: from the command line, the validator and
/// the real runtime.
#[test]
fn a_json_failure_is_one_document_and_one_short_line() {
    let rt = Runtime::start();
    let workspace = rt.workspace("acme");
    rt.channel(&workspace, "eng");
    let alice = rt.agent(&workspace, "alice");
    let cli = Cli::new();
    cli.login_to(
        &rt.base_url(),
        &alice.workspace_id,
        &alice.agent_id,
        &alice.token,
    );
    let long = "x".repeat(400);
    let cases: Vec<(Vec<&str>, String, &str)> = vec![
        (
            vec!["exec", "task", "frobnicate", "-"],
            String::new(),
            "usage_error",
        ),
        (
            vec!["exec", "task", "list", "-", "--nope"],
            String::new(),
            "usage_error",
        ),
        (
            vec!["exec", "task", "get", "-"],
            "{not json".into(),
            "invalid_json",
        ),
        (
            vec!["exec", "task", "get", "-"],
            format!(r#"{{"channel":"{long}","number":"one","bogus":1}}"#),
            "invalid_input",
        ),
        (
            vec!["exec", "task", "create", "-"],
            r#"{"channel":"eng","tasks":[{"title":""},{"title":"ok","labels":["a","a"]}]}"#.into(),
            "invalid_input",
        ),
        (
            vec!["exec", "task", "get", "-"],
            r#"{"channel":"eng","number":9}"#.into(),
            "task_not_found",
        ),
        (
            vec!["exec", "task", "get", "-"],
            r#"{"channel":"nope","number":1}"#.into(),
            "channel_not_found",
        ),
    ];
    for (args, input, code) in cases {
        let run = cli.run(&args, Some(&input));
        assert_ne!(run.code, 0, "{args:?}");
        assert_eq!(run.error_code(), code, "{args:?}: {run:?}");
        assert_eq!(
            run.stdout.lines().count(),
            1,
            "{args:?}: one document: {run:?}"
        );
        assert!(
            run.stderr.lines().count() <= 1 && run.stderr.len() <= 200,
            "{args:?}: stderr is {} bytes: {:?}",
            run.stderr.len(),
            run.stderr
        );
        let doc = run.json();
        // One bad field is the message itself; more are listed only in the
        // document.
        if let Some(fields) = doc["error"]["field_errors"]
            .as_object()
            .filter(|f| f.len() > 1)
        {
            for (field, problem) in fields {
                let problem = problem.as_str().unwrap_or_default();
                assert!(
                    !run.stderr.contains(problem),
                    "{args:?}: stderr repeats {field}'s detail: {:?}",
                    run.stderr
                );
            }
        }
    }
}

/// `agentteam-runtime quickstart` on `rt`'s store, writing `cli`'s
/// profile; its JSON answer.
fn quickstart(rt: &Runtime, cli: &Cli) -> serde_json::Value {
    let out = std::process::Command::new(crate::support::runtime::BIN)
        .arg("--db")
        .arg(&rt.db)
        .args(["quickstart", "--api-url", &rt.base_url()])
        .env("AGENTTEAM_CONFIG_DIR", cli.config_dir())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `quickstart` over a profile that is capped keeps the cap: a new place is
/// no reason to let the profile do more.
#[test]
fn quickstart_keeps_a_capped_profiles_cap() {
    let rt = Runtime::start();
    let cli = Cli::new();
    quickstart(&rt, &cli);
    let capped = cli.run(
        &[
            "auth",
            "login",
            "--credential-process",
            "false",
            "--max-permission",
            "read_only",
        ],
        None,
    );
    assert_eq!(capped.code, 0, "{capped:?}");
    quickstart(&rt, &cli);
    let status = cli.run(&["auth", "status"], None).json();
    assert_eq!(status["data"]["max_permission"], "read_only", "{status}");
    let run = cli.run(
        &["exec", "task", "create", "-"],
        Some(r#"{"channel": "demo", "tasks": [{"title": "t"}]}"#),
    );
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (4, "forbidden"),
        "{run:?}"
    );
    assert_eq!(
        cli.run(
            &["exec", "task", "list", "-"],
            Some(r#"{"channel": "demo"}"#)
        )
        .code,
        0
    );
}

/// The examples name the board `agentteam-runtime quickstart` creates, so a
/// newcomer can pipe one into its action on a fresh setup.
#[test]
fn the_examples_run_on_the_quickstart_board() {
    let rt = Runtime::start();
    let cli = Cli::new();
    let board = quickstart(&rt, &cli)["channel"].clone();
    for action in ACTIONS {
        for example in action.examples {
            let input: serde_json::Value = serde_json::from_str(example.input).unwrap();
            if let Some(channel) = input.get("channel") {
                assert_eq!(channel, &board, "{}: {}", action.name(), example.input);
            }
        }
    }
    for verb in ["list", "create"] {
        let example = cli.run(&["exec", "task", verb, "--example"], None);
        let run = cli.run(&["exec", "task", verb, "-"], Some(&example.stdout));
        assert_eq!(
            run.code, 0,
            "task {verb} --example | task {verb} -: {run:?}"
        );
    }
}

/// Every error line either binary writes on stderr starts `error:` (as
/// clap's do), in both formats: never `Error:` or the program's name.
#[test]
fn every_stderr_error_line_starts_with_lowercase_error() {
    let cli = Cli::new();
    let mut stderrs = Vec::new();
    for args in [
        &["exec", "task", "get", "-", "--format", "json"][..],
        &["exec", "task", "get", "-", "--format", "text"],
        &["exec", "task", "nope", "-"],
        &["--no-such-flag"],
        &["auth", "status", "--format", "text"],
    ] {
        let run = cli.run(args, Some(r#"{"channel":"eng"}"#));
        assert_ne!(run.code, 0, "{args:?}: {run:?}");
        stderrs.push((format!("agentteam {args:?}"), run.stderr));
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db").display().to_string();
    for args in [
        &[
            "--db",
            &db,
            "agent",
            "create",
            "--workspace",
            "ws_none",
            "--handle",
            "a",
        ][..],
        &[
            "--db",
            &db,
            "channel",
            "create",
            "--workspace",
            "ws_none",
            "--name",
            "BAD NAME",
        ],
        &[
            "--db",
            "/dev/null/r.db",
            "workspace",
            "create",
            "--name",
            "w",
        ],
        &["--no-such-flag"],
    ] {
        let out = std::process::Command::new(crate::support::runtime::BIN)
            .args(args)
            // The log (RUST_LOG) is its own stream of timestamped records.
            .env("RUST_LOG", "off")
            .output()
            .expect("run agentteam-runtime");
        assert!(!out.status.success(), "{args:?}");
        stderrs.push((
            format!("agentteam-runtime {args:?}"),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
    }
    for (what, stderr) in stderrs {
        let first = stderr.lines().next().unwrap_or_default();
        assert!(first.starts_with("error: "), "{what}: {stderr}");
        for line in stderr.lines() {
            assert!(
                !line.starts_with("Error") && !line.starts_with("agentteam"),
                "{what}: {line}"
            );
        }
    }
}

/// `agentteam-runtime` refuses a command line it cannot read as it refuses
/// anything else: one JSON `usage_error` on stdout, exit 2, and no store
/// touched; `--help` and `--version` still print their text.
#[test]
fn runtime_command_line_errors_are_one_json_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rt.db");
    let run = |args: &[&str]| {
        std::process::Command::new(crate::support::runtime::BIN)
            .arg("--db")
            .arg(&db)
            .args(args)
            .output()
            .unwrap()
    };
    let issue = ["token", "issue", "--workspace", "w", "--agent", "a"];
    for (args, says) in [
        (
            &[&issue[..], &["--scope", "admin"]].concat()[..],
            "[possible values: read_only, agent_mutation, destructive]",
        ),
        (
            &[&issue[..], &["--ttl", "0"]].concat(),
            "'0' for '--ttl <DURATION>'",
        ),
        // A negative lifetime is a bad value of --ttl, not a flag.
        (
            &[&issue[..], &["--ttl", "-1"]].concat(),
            "'-1' for '--ttl <DURATION>'",
        ),
        (&["--bogus"], "unexpected argument '--bogus'"),
        (
            &[],
            "`agentteam-runtime` needs a command: `serve`, `migrate`",
        ),
        (
            &["token"],
            "`token` needs a command: `issue`, `revoke`, `count`",
        ),
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {out:?}"));
        assert_eq!(doc["error"]["code"], "usage_error", "{args:?}");
        let message = doc["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{args:?}: {message}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
    assert!(
        !db.exists(),
        "no store is opened for a command line refused"
    );
    for flag in ["--help", "--version"] {
        let out = run(&[flag]);
        assert_eq!(out.status.code(), Some(0), "{flag}");
        assert!(
            serde_json::from_slice::<serde_json::Value>(&out.stdout).is_err(),
            "{flag}"
        );
    }
}

/// Each binary's `--help` names every environment variable it reads, from
/// the one table the man pages and the README come from.
#[test]
fn help_names_every_environment_variable_its_binary_reads() {
    for (binary, path) in [
        ("agentteam", env!("CARGO_BIN_EXE_agentteam")),
        ("agentteam-runtime", crate::support::runtime::BIN),
    ] {
        let out = std::process::Command::new(path)
            .arg("--help")
            .output()
            .expect("run --help");
        let help = String::from_utf8_lossy(&out.stdout);
        let environment = help
            .split_once("\nEnvironment:\n")
            .unwrap_or_else(|| panic!("{binary} --help has no Environment section:\n{help}"))
            .1;
        for var in agentteam::env_vars::ALL {
            assert_eq!(
                environment.contains(&format!("  {}\n", var.name)),
                var.binary == binary,
                "{binary} --help and {}",
                var.name
            );
        }
    }
}

/// An empty profile name or credential process is a usage error naming what
/// is empty; a profile named `""` was saved, and an empty process was said
/// to have unbalanced quotes.
#[test]
fn empty_profile_names_and_credential_processes_are_usage_errors() {
    let cli = Cli::new();
    let login = |extra: &[&str]| {
        let mut args = vec![
            "auth",
            "login",
            "--api-url",
            "http://127.0.0.1:1",
            "--workspace",
            "w",
            "--agent",
            "a",
        ];
        args.extend_from_slice(extra);
        cli.run(&args, Some("tok_1234567890abcdef"))
    };
    let run = login(&["--profile", "", "--token-stdin"]);
    assert_eq!((run.code, run.error_code().as_str()), (2, "usage_error"));
    assert!(run.stdout.contains("--profile"), "{}", run.stdout);
    let run = login(&["--credential-process", " "]);
    assert_eq!((run.code, run.error_code().as_str()), (2, "usage_error"));
    assert!(
        run.stdout.contains("--credential-process is empty"),
        "{}",
        run.stdout
    );
    assert_eq!(cli.store_text(), "", "nothing was saved");
}

/// AGENTTEAM_TIMEOUT is read as every variable of the CLI is: empty counts
/// as unset (the request goes out with the default), a bad value is a usage
/// error that names the variable, not the `--timeout` nobody typed, and
/// sends nothing; and a command that sends no request does not read it.
#[test]
fn agentteam_timeout_empty_is_unset_and_a_bad_value_names_the_variable() {
    use crate::support::recorder::{Recorder, Reply};
    let get = r#"{"channel":"eng","number":1}"#;
    let (mut cli, server) = Recorder::start(vec![Reply::json(
        404,
        json!({"error": {"code": "task_not_found", "message": "No task 1.", "retryable": false}}),
    )])
    .logged_in("at_t");
    cli.env.push(("AGENTTEAM_TIMEOUT".into(), String::new()));
    let run = cli.exec("task", "get", get, &[]);
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (4, "task_not_found"),
        "{run:?}"
    );
    assert_eq!(server.requests().len(), 1);

    let (mut cli, server) = Recorder::expecting_no_request().logged_in("at_t");
    for bad in ["abc", "0", "3601", "-1", " 5"] {
        cli.env = vec![("AGENTTEAM_TIMEOUT".into(), bad.into())];
        let run = cli.exec("task", "get", get, &[]);
        assert_eq!(
            (run.code, run.error_code().as_str()),
            (2, "usage_error"),
            "{bad}: {run:?}"
        );
        let message = run.json()["error"]["message"].as_str().unwrap().to_string();
        assert!(
            message.contains("AGENTTEAM_TIMEOUT")
                && message.contains(&format!("`{bad}`"))
                && !message.contains("--timeout"),
            "{bad}: {message}"
        );
        // The flag, given, is what counts; a command that sends nothing
        // does not read the variable.
        let flagged = cli.exec("task", "get", get, &["--timeout", "5", "--dry-run"]);
        assert_eq!(flagged.code, 0, "{bad}: {flagged:?}");
        assert_eq!(cli.run(&["auth", "status"], None).code, 0, "{bad}");
    }
    // A token pasted into the variable is not repeated, as for --timeout.
    let token = "at_zwvXv3EkwMvYCEC_IOH9zg2AeZZfLI3io";
    cli.env = vec![("AGENTTEAM_TIMEOUT".into(), token.into())];
    let run = cli.exec("task", "get", get, &[]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        !run.stdout.contains("zwvX") && !run.stderr.contains("zwvX"),
        "{run:?}"
    );
    assert!(run.stdout.contains("`<redacted>`"), "{run:?}");
    drop(server);
}

/// A login of an existing profile keeps what it does not give while it
/// names the same place: a new token keeps the credential process that
/// refreshes it, a new cap keeps both; moved to another agent, neither is
/// kept, and a profile with nothing to authenticate with is refused.
#[test]
fn a_login_of_an_existing_profile_keeps_what_it_does_not_give() {
    let cli = Cli::new();
    let stored = || {
        let store: serde_json::Value = serde_json::from_str(&cli.store_text()).unwrap();
        let p = store["profiles"]["default"].clone();
        (
            p["token"].clone(),
            p["credential_process"].clone(),
            p["max_permission"].clone(),
        )
    };
    let place = [
        "--api-url",
        "http://127.0.0.1:9",
        "--workspace",
        "w",
        "--agent",
        "a",
    ];
    let login = |extra: &[&str], stdin: Option<&str>| {
        cli.run(&[&["auth", "login"], &place[..], extra].concat(), stdin)
    };
    // A new profile needs a token or a process; nothing is written without.
    let run = login(&["--max-permission", "read_only"], None);
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (2, "usage_error"),
        "{run:?}"
    );
    assert!(!cli.config_dir().exists());
    assert_eq!(login(&["--credential-process", "printf x"], None).code, 0);
    assert_eq!(login(&["--token-stdin"], Some("at_token\n")).code, 0);
    assert_eq!(
        stored(),
        (json!("at_token"), json!(["printf", "x"]), json!(null))
    );
    let run = cli.run(&["auth", "login", "--max-permission", "read_only"], None);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        stored(),
        (
            json!("at_token"),
            json!(["printf", "x"]),
            json!("read_only")
        )
    );
    // Another agent: the token and process were the old agent's.
    let run = cli.run(&["auth", "login", "--agent", "b"], None);
    assert_eq!(
        (run.code, run.error_code().as_str()),
        (2, "usage_error"),
        "{run:?}"
    );
    assert!(run.stdout.contains("keeps neither"), "{run:?}");
    assert_eq!(
        stored().0,
        json!("at_token"),
        "a refused login changes nothing"
    );
    let run = cli.run(
        &["auth", "login", "--agent", "b", "--token-stdin"],
        Some("at_b\n"),
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(stored(), (json!("at_b"), json!(null), json!("read_only")));
}
