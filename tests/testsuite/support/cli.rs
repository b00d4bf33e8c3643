//! Runs the real `agentteam` binary hermetically: an empty environment but
//! PATH, a temp HOME and a temp AGENTTEAM_CONFIG_DIR, so nothing of the
//! developer's machine leaks in and nothing leaks out.

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

pub struct Cli {
    pub home: tempfile::TempDir,
    pub config: PathBuf,
    pub env: Vec<(String, String)>,
}

#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl Run {
    /// The one JSON document on stdout.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not one JSON document ({e}):\n{}\nstderr: {}",
                self.stdout, self.stderr
            )
        })
    }

    pub fn error_code(&self) -> String {
        self.json()["error"]["code"]
            .as_str()
            .unwrap_or_else(|| panic!("no error code in {}", self.stdout))
            .to_string()
    }
}

impl Cli {
    pub fn new() -> Cli {
        let home = tempfile::tempdir().unwrap();
        let config = home.path().join("config");
        Cli {
            home,
            config,
            env: Vec::new(),
        }
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentteam"));
        cmd.args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("AGENTTEAM_CONFIG_DIR", &self.config);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }

    /// Starts the CLI with stdin, stdout and stderr each a pipe of the
    /// test's, for a test that drives the process as it runs.
    pub fn spawn(&self, args: &[&str]) -> std::process::Child {
        self.command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start agentteam")
    }

    /// Runs with `stdin` piped in (None: stdin is /dev/null).
    pub fn run(&self, args: &[&str], stdin: Option<&str>) -> Run {
        self.run_within(args, stdin, None)
    }

    /// [`Cli::run`] under a watchdog: the test fails, and the process is
    /// killed, if it is still running after `limit`. Only for runs whose
    /// point is that they do not hang; `None` waits for as long as it takes.
    pub fn run_within(&self, args: &[&str], stdin: Option<&str>, limit: Option<Duration>) -> Run {
        let started = Instant::now();
        let mut cmd = self.command(args);
        cmd.stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        if let Some(input) = stdin {
            let mut pipe = child.stdin.take().unwrap();
            let _ = pipe.write_all(input.as_bytes());
        }
        let out = match limit {
            None => child.wait_with_output().unwrap(),
            Some(limit) => {
                let drain = |mut pipe: Box<dyn Read + Send>| {
                    thread::spawn(move || {
                        let mut bytes = Vec::new();
                        let _ = pipe.read_to_end(&mut bytes);
                        bytes
                    })
                };
                let stdout = drain(Box::new(child.stdout.take().unwrap()));
                let stderr = drain(Box::new(child.stderr.take().unwrap()));
                let status = loop {
                    if let Some(status) = child.try_wait().unwrap() {
                        break status;
                    }
                    if started.elapsed() >= limit {
                        let _ = child.kill();
                        let _ = child.wait();
                        panic!(
                            "`agentteam {}` still ran after {limit:?}: it hangs",
                            args.join(" ")
                        );
                    }
                    thread::sleep(Duration::from_millis(20));
                };
                Output {
                    status,
                    stdout: stdout.join().unwrap(),
                    stderr: stderr.join().unwrap(),
                }
            }
        };
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            elapsed: started.elapsed(),
        }
    }

    /// `exec <domain> <verb> -` with `input` on stdin, plus extra flags.
    pub fn exec(&self, domain: &str, verb: &str, input: &str, flags: &[&str]) -> Run {
        self.exec_within(domain, verb, input, flags, None)
    }

    /// [`Cli::exec`] under the watchdog of [`Cli::run_within`].
    pub fn exec_within(
        &self,
        domain: &str,
        verb: &str,
        input: &str,
        flags: &[&str],
        limit: Option<Duration>,
    ) -> Run {
        let mut args = vec!["exec", domain, verb, "-"];
        args.extend_from_slice(flags);
        self.run_within(&args, Some(input), limit)
    }

    /// Saves a profile with a token (and optionally a credential process).
    pub fn login(&self, api_url: &str, token: &str, credential_process: Option<&str>) {
        let mut args = vec![
            "auth",
            "login",
            "--api-url",
            api_url,
            "--workspace",
            "ws_test",
            "--agent",
            "ag_test",
            "--token-stdin",
        ];
        if let Some(process) = credential_process {
            args.extend_from_slice(&["--credential-process", process]);
        }
        let run = self.run(&args, Some(token));
        assert_eq!(run.code, 0, "login failed: {run:?}");
    }

    /// Saves a profile for a real agent: its workspace, agent id and token.
    pub fn login_to(&self, api_url: &str, workspace: &str, agent: &str, token: &str) {
        let run = self.run(
            &[
                "auth",
                "login",
                "--api-url",
                api_url,
                "--workspace",
                workspace,
                "--agent",
                agent,
                "--token-stdin",
            ],
            Some(token),
        );
        assert_eq!(run.code, 0, "login failed: {run:?}");
    }

    /// A credential process script printing `stdout` and exiting with `code`.
    pub fn script(&self, name: &str, body: &str) -> String {
        let path = self.home.path().join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.display().to_string()
    }

    /// Writes `store` as the credential store, hand-made (private, as the
    /// CLI requires): for a store no login would write.
    pub fn write_store(&self, store: &Value) {
        std::fs::create_dir_all(&self.config).unwrap();
        std::fs::set_permissions(&self.config, std::fs::Permissions::from_mode(0o700)).unwrap();
        let path = self.config.join("credentials.json");
        std::fs::write(&path, store.to_string()).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }

    pub fn store_text(&self) -> String {
        std::fs::read_to_string(self.config.join("credentials.json")).unwrap_or_default()
    }

    pub fn config_dir(&self) -> &Path {
        &self.config
    }
}

/// Runs `command` to its end with `stdin` written to its standard input,
/// its stdout and stderr captured.
pub fn output_with_stdin(command: &mut Command, stdin: &str) -> Output {
    spawn_with_stdin(command, stdin).wait_with_output().unwrap()
}

/// Starts `command` with `stdin` written to its standard input (then
/// closed), its stdout and stderr captured: several run at once.
pub fn spawn_with_stdin(command: &mut Command, stdin: &str) -> Child {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child
}
