//! Throwaway PostgreSQL servers for tests. A [`Cluster`] owns everything it
//! needs: a temp directory under /tmp (data dir, socket dir, server log), a
//! postmaster that is a direct child of the test process, and the thread that
//! spawned it. Tests never touch a system-wide server, ~/.psql_history or
//! anything else outside that directory, and nothing outlives the test
//! process: [`Cluster::shared`] is stopped and deleted by an `atexit` handler,
//! [`Cluster::start`] on `Drop`, and both by the kernel's parent-death signal
//! if the process dies abnormally (the directory then stays behind in /tmp).
//!
//! PostgreSQL refuses to run as root, so when the tests run as root (as CI
//! does) `initdb` and `postgres` run as the unprivileged `postgres` account.
//! Clients (`psql`, the server under test) keep running as the caller.
//!
//! Only std, `libc`, `percent-encoding` and `tempfile` are used, so the library's own unit tests
//! can include this file too:
//! `#[path = "../../../tests/testsuite/support/postgres.rs"] mod cluster;`,
//! where most of it goes unused.

#![allow(dead_code)]

use std::collections::BTreeSet;
use std::collections::hash_map::RandomState;
use std::ffi::{CString, OsStr};
use std::fs::{self, File, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::net::TcpListener;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError, mpsc};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC};

/// The bootstrap superuser (`initdb --username`).
pub const SUPERUSER: &str = "agentteam";
/// The superuser's password, needed over TCP only (scram-sha-256); local
/// socket connections are trusted. URL-safe, so it goes into URIs verbatim.
pub const PASSWORD: &str = "agentteam-test-pw";

/// Settings every cluster starts with; [`Cluster::start_with`] overrides them.
/// fsync=off only makes tests fast: crash durability of PostgreSQL itself is
/// not under test. The socket is for the owner only (trust auth on it).
const DEFAULT_SETTINGS: &[(&str, &str)] = &[
    ("listen_addresses", "127.0.0.1"),
    ("unix_socket_permissions", "0700"),
    ("max_connections", "300"),
    ("shared_buffers", "64MB"),
    ("fsync", "off"),
    ("synchronous_commit", "on"),
    ("full_page_writes", "off"),
    ("log_min_messages", "warning"),
];

/// Settings the harness owns: the URIs it hands out depend on them.
const RESERVED_SETTINGS: &[&str] = &["port", "unix_socket_directories", "data_directory"];

/// How long a server may take to accept connections after it is spawned.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long [`Cluster::stop`] waits for a fast shutdown before SIGKILL.
const STOP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long `Drop` and the exit handler wait before SIGKILL: the data is
/// thrown away, so there is no point waiting long.
const DISCARD_TIMEOUT: Duration = Duration::from_secs(5);
/// Fresh ports tried when another process takes the one picked.
const PORT_ATTEMPTS: usize = 5;
const POLL_INTERVAL: Duration = Duration::from_millis(10);

/// The process-wide cluster behind [`Cluster::shared`].
static SHARED: OnceLock<Cluster> = OnceLock::new();
/// Makes database names unique within the process (the pid makes them
/// unique across processes, though each cluster is private anyway).
static NEXT_DATABASE: AtomicU64 = AtomicU64::new(1);

/// A PostgreSQL server in its own temp directory. See the module docs.
pub struct Cluster {
    /// `/tmp/agentteam-pg-XXXXXX`, owned by the run-as user, mode 0700.
    /// Holds `data/`, `sock/` and `server.log`; deleted on drop.
    root: tempfile::TempDir,
    data_dir: PathBuf,
    socket_dir: PathBuf,
    log_path: PathBuf,
    port: u16,
    bin_dir: PathBuf,
    /// `Some` when the test process is root and the server runs as `postgres`.
    run_as: Option<RunAs>,
    /// `(name, value)` pairs passed as `postgres -c name=value`.
    settings: Vec<(String, String)>,
    /// The running postmaster; `None` between [`Cluster::stop`] and
    /// [`Cluster::restart`]. A Mutex because those take `&self`.
    postmaster: Mutex<Option<Child>>,
    /// The postmaster's pid (0 when stopped), for the exit handler, which
    /// must not block on the Mutex if a test thread is stuck holding it.
    postmaster_pid: AtomicI32,
    spawner: Spawner,
}

impl Cluster {
    /// The process-wide shared cluster, started on first use and stopped and
    /// deleted when the process exits. Use one [`Cluster::create_database`]
    /// per test; never [`Cluster::stop`] it (other tests are using it).
    pub fn shared() -> &'static Cluster {
        SHARED.get_or_init(|| {
            let cluster = Cluster::start();
            // SAFETY: registers a plain `extern "C" fn` that only touches
            // statics; atexit has no other preconditions.
            let registered = unsafe { libc::atexit(stop_shared_cluster_at_exit) };
            assert_eq!(
                registered, 0,
                "atexit failed: the shared PostgreSQL server would outlive the tests"
            );
            cluster
        })
    }

    /// A private cluster owned by the caller, for tests that stop and restart
    /// the server; stopped and deleted on drop.
    pub fn start() -> Cluster {
        Cluster::start_with(&[])
    }

    /// [`Cluster::start`] with server settings added to or overriding the
    /// defaults, e.g. `&[("fsync", "on")]` for a benchmark. The port, socket
    /// and data directories are the harness's and cannot be overridden.
    pub fn start_with(extra_settings: &[(&str, &str)]) -> Cluster {
        Cluster::start_with_files(extra_settings, &[])
    }

    /// [`Cluster::start_with`], with `files` (name, contents) written into
    /// the cluster's directory before the server starts, private to the
    /// server's user (as PostgreSQL wants a key file); a setting names one
    /// as `{dir}/NAME`. For a server's TLS certificate and key, say.
    pub fn start_with_files(extra_settings: &[(&str, &str)], files: &[(&str, &str)]) -> Cluster {
        let mut settings: Vec<(String, String)> = DEFAULT_SETTINGS
            .iter()
            .map(|&(name, value)| (name.to_owned(), value.to_owned()))
            .collect();
        for &(name, value) in extra_settings {
            assert!(
                !RESERVED_SETTINGS.contains(&name),
                "Cluster::start_with: `{name}` is chosen by the harness and cannot be overridden"
            );
            match settings.iter_mut().find(|(known, _)| known == name) {
                Some(setting) => setting.1 = value.to_owned(),
                None => settings.push((name.to_owned(), value.to_owned())),
            }
        }

        // Under /tmp, not $TMPDIR: the socket path must stay well below the
        // ~107 bytes a Unix socket path may have.
        let root = tempfile::Builder::new()
            .prefix("agentteam-pg-")
            .tempdir_in("/tmp")
            .expect("cannot create a temp dir under /tmp for PostgreSQL");
        let run_as = run_as();
        let mut cluster = Cluster {
            data_dir: root.path().join("data"),
            socket_dir: root.path().join("sock"),
            log_path: root.path().join("server.log"),
            root,
            port: 0,
            bin_dir: bin_dir().to_owned(),
            run_as,
            settings,
            postmaster: Mutex::new(None),
            postmaster_pid: AtomicI32::new(0),
            spawner: Spawner::new(),
        };
        cluster.prepare_dirs();
        cluster.initdb();
        let dir = cluster.root.path().display().to_string();
        for (_, value) in &mut cluster.settings {
            *value = value.replace("{dir}", &dir);
        }
        for (name, contents) in files {
            cluster.private_file(name, contents);
        }

        // A port is picked by binding it and releasing it, so another
        // process can take it before the server binds it: retry.
        for attempt in 1..=PORT_ATTEMPTS {
            cluster.port = free_port();
            match cluster.spawn_postmaster() {
                Ok(child) => {
                    cluster.set_postmaster(cluster.lock_postmaster(), child);
                    return cluster;
                }
                Err(StartError::PortTaken(_)) if attempt < PORT_ATTEMPTS => continue,
                Err(StartError::PortTaken(log) | StartError::Failed(log)) => panic!(
                    "PostgreSQL did not start on port {} ({}); server log:\n{log}",
                    cluster.port,
                    cluster.data_dir.display()
                ),
            }
        }
        unreachable!("the last attempt either returns or panics")
    }

    /// Creates a fresh empty database with a unique name and returns its
    /// Unix-socket URI (trust auth, no password), see [`Cluster::socket_uri`].
    /// Safe to call from many threads at once.
    pub fn create_database(&self) -> String {
        self.socket_uri(&self.new_database())
    }

    /// Creates a fresh empty database with a unique name (`t_<pid>_<n>`) and
    /// returns the name, for [`Cluster::psql`] and [`Cluster::tcp_uri`].
    pub fn new_database(&self) -> String {
        let name = format!(
            "t_{}_{}",
            std::process::id(),
            NEXT_DATABASE.fetch_add(1, Ordering::Relaxed)
        );
        self.psql("postgres", &format!("CREATE DATABASE {name}"));
        name
    }

    /// `postgres://agentteam@/DBNAME?host=/abs/socket/dir&port=PORT`: the
    /// form both libpq and tokio-postgres 0.7 read as a socket directory
    /// (a `host` starting with `/`).
    pub fn socket_uri(&self, dbname: &str) -> String {
        format!(
            "postgres://{SUPERUSER}@/{dbname}?host={}&port={}",
            percent_encode(self.socket_dir.as_os_str()),
            self.port
        )
    }

    /// The same database over TCP with the password:
    /// `postgres://agentteam:PASSWORD@127.0.0.1:PORT/DBNAME`.
    pub fn tcp_uri(&self, dbname: &str) -> String {
        format!(
            "postgres://{SUPERUSER}:{PASSWORD}@127.0.0.1:{}/{dbname}",
            self.port
        )
    }

    pub fn socket_dir(&self) -> &Path {
        &self.socket_dir
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The cluster's temp directory (data dir, socket dir, server log).
    pub fn dir(&self) -> &Path {
        self.root.path()
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// The server log, for assertions on what the server reported.
    pub fn log_path(&self) -> &Path {
        &self.log_path
    }

    /// The running postmaster's pid; `None` while stopped.
    pub fn postmaster_pid(&self) -> Option<u32> {
        self.lock_postmaster().as_ref().map(Child::id)
    }

    /// Path of a PostgreSQL client/server binary (psql, pgbench, pg_dump…)
    /// from the same install as the server.
    pub fn bin(&self, name: &str) -> PathBuf {
        let path = self.bin_dir.join(name);
        assert!(
            path.is_file(),
            "no `{name}` in {} (the PostgreSQL install the tests use)",
            self.bin_dir.display()
        );
        path
    }

    /// A [`Command`] for a client binary ([`Cluster::bin`]) with an
    /// environment that cannot redirect it (no PG* variables, HOME and the
    /// password file inside the cluster's dir, no psql history).
    pub fn client_command(&self, name: &str) -> Command {
        let mut command = Command::new(self.bin(name));
        clear_pg_env(&mut command);
        command
            .env("HOME", self.root.path())
            .env("PSQL_HISTORY", "/dev/null")
            // libpq 15 finds ~/.pgpass through getpwuid, not HOME.
            .env("PGPASSFILE", self.root.path().join("no-pgpass"))
            .env("PGCONNECT_TIMEOUT", "10")
            .current_dir(self.root.path())
            .stdin(Stdio::null());
        command
    }

    /// Runs psql as [`SUPERUSER`] through the socket on `dbname` with
    /// `-v ON_ERROR_STOP=1 -X -q -A -t -c sql` and returns its stdout (the
    /// rows, `|`-separated, one a line, without command tags); panics
    /// with psql's stderr if it fails.
    pub fn psql(&self, dbname: &str, sql: &str) -> String {
        self.try_psql(dbname, sql)
            .unwrap_or_else(|stderr| panic!("psql on {dbname} failed: {sql}\n{stderr}"))
    }

    /// [`Cluster::psql`] that returns psql's stderr instead of panicking,
    /// e.g. to check that the server is down.
    pub fn try_psql(&self, dbname: &str, sql: &str) -> Result<String, String> {
        let output = self
            .client_command("psql")
            .arg("-h")
            .arg(&self.socket_dir)
            .arg("-p")
            .arg(self.port.to_string())
            .args(["-U", SUPERUSER, "-d", dbname])
            // -q: no command tags ("INSERT 0 1"), only the rows of the
            // statements that return some.
            .args(["-v", "ON_ERROR_STOP=1", "-X", "-q", "-A", "-t", "-c", sql])
            .output()
            .expect("cannot run psql");
        if output.status.success() {
            Ok(String::from_utf8_lossy(&output.stdout).into_owned())
        } else {
            Err(format!(
                "{}{}",
                String::from_utf8_lossy(&output.stderr),
                output.status
            ))
        }
    }

    /// Fast shutdown (SIGINT to the postmaster), waiting until it has
    /// exited; for fault tests. Panics if the server is already stopped or
    /// does not shut down within 30 s (it is then killed).
    pub fn stop(&self) {
        let mut postmaster = self.lock_postmaster();
        let mut child = postmaster
            .take()
            .expect("Cluster::stop: the server is already stopped");
        self.postmaster_pid.store(0, Ordering::SeqCst);
        if let Err(status) = shut_down(&mut child, STOP_TIMEOUT) {
            panic!(
                "PostgreSQL did not shut down within {STOP_TIMEOUT:?} and was killed ({}); server log:\n{}",
                status,
                self.log_tail(0)
            );
        }
    }

    /// Starts the server again on the same data dir, port and socket dir
    /// (after a fast shutdown if it is still running) and returns once it
    /// accepts connections.
    pub fn restart(&self) {
        if self.lock_postmaster().is_some() {
            self.stop();
        }
        let postmaster = self.lock_postmaster();
        // Another restart may have won the race since the check above.
        assert!(
            postmaster.is_none(),
            "Cluster::restart raced with another restart"
        );
        match self.spawn_postmaster() {
            Ok(child) => self.set_postmaster(postmaster, child),
            Err(StartError::PortTaken(log)) => panic!(
                "PostgreSQL cannot restart: another process took port {} while it was stopped; server log:\n{log}",
                self.port
            ),
            Err(StartError::Failed(log)) => {
                panic!("PostgreSQL did not restart; server log:\n{log}")
            }
        }
    }

    /// The last lines of the server log from byte `from` on.
    fn log_tail(&self, from: u64) -> String {
        let mut text = String::new();
        if let Ok(mut file) = File::open(&self.log_path) {
            let _ = file.seek(SeekFrom::Start(from));
            let _ = file.read_to_string(&mut text);
        }
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }

    fn lock_postmaster(&self) -> MutexGuard<'_, Option<Child>> {
        // A test that panicked while holding the lock leaves the state valid.
        self.postmaster
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn set_postmaster(&self, mut slot: MutexGuard<'_, Option<Child>>, child: Child) {
        let pid = libc::pid_t::try_from(child.id()).expect("pid fits pid_t");
        self.postmaster_pid.store(pid, Ordering::SeqCst);
        *slot = Some(child);
    }

    /// Creates the data and socket dirs, owned by the run-as user, mode 0700
    /// (PostgreSQL insists on it for the data dir; the socket dir is private
    /// because local connections are trusted).
    fn prepare_dirs(&self) {
        for dir in [&self.data_dir, &self.socket_dir] {
            fs::create_dir(dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        }
        for dir in [self.root.path(), &self.data_dir, &self.socket_dir] {
            fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
                .unwrap_or_else(|e| panic!("cannot chmod {}: {e}", dir.display()));
            self.give_to_run_as(dir);
        }
    }

    /// Hands `path` to the `postgres` account when the server runs as it.
    fn give_to_run_as(&self, path: &Path) {
        if let Some(user) = &self.run_as {
            std::os::unix::fs::chown(path, Some(user.uid), Some(user.gid)).unwrap_or_else(|e| {
                panic!("cannot chown {} to {}: {e}", path.display(), user.name)
            });
        }
    }

    /// `name` in the cluster's directory holding `contents`, readable by
    /// the server's user alone (mode 0600, owned by it).
    fn private_file(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.root.path().join(name);
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", path.display()));
        file.write_all(contents.as_bytes())
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        self.give_to_run_as(&path);
        path
    }

    fn initdb(&self) {
        // The password reaches initdb through a file only the server's user
        // can read, and the file is gone once initdb is done.
        let pwfile = self.private_file("pwfile", &format!("{PASSWORD}\n"));

        let locale = if c_utf8_locale_exists() {
            "--locale=C.UTF-8"
        } else {
            "--no-locale"
        };
        let started = Instant::now();
        let output = self
            .server_command("initdb")
            .arg("-D")
            .arg(&self.data_dir)
            .arg(format!("--username={SUPERUSER}"))
            .arg(format!("--pwfile={}", pwfile.display()))
            .args([
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                "--encoding=UTF8",
                locale,
                "--no-sync",
            ])
            .output()
            .expect("cannot run initdb");
        let _ = fs::remove_file(&pwfile);
        assert!(
            output.status.success(),
            "initdb failed ({}) after {:?}:\n{}{}",
            output.status,
            started.elapsed(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// A [`Command`] for a server binary (initdb, postgres), as the run-as
    /// user, in the cluster's dir, with no PG* variables but PGDATA.
    fn server_command(&self, name: &str) -> Command {
        let mut command = Command::new(self.bin(name));
        clear_pg_env(&mut command);
        command
            .env("HOME", self.root.path())
            .env("PGDATA", &self.data_dir)
            // The caller's cwd may not be readable by `postgres`.
            .current_dir(self.root.path())
            .stdin(Stdio::null());
        if let Some(user) = &self.run_as {
            // With `uid` set, std itself runs setgid, setgroups(0, NULL) and
            // setuid, in that order, before any `pre_exec` hook. So the
            // supplementary groups are not dropped in a hook (after setuid
            // that would fail with EPERM); the hook checks that std did,
            // since std ignores an EPERM from setgroups.
            command.env("USER", &user.name).uid(user.uid).gid(user.gid);
            let uid = user.uid;
            // SAFETY: the hook only makes async-signal-safe syscalls.
            unsafe {
                command.pre_exec(move || {
                    if libc::getuid() != uid || libc::getgroups(0, std::ptr::null_mut()) != 0 {
                        return Err(io::Error::from_raw_os_error(libc::EPERM));
                    }
                    Ok(())
                });
            }
        }
        command
    }

    /// Spawns the postmaster on `self.port` from the spawner thread and
    /// waits until it accepts connections. On failure it is not running.
    fn spawn_postmaster(&self) -> Result<Child, StartError> {
        let log_start = fs::metadata(&self.log_path).map_or(0, |m| m.len());
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log_path)
            .unwrap_or_else(|e| panic!("cannot open {}: {e}", self.log_path.display()));
        let log_for_stderr = log
            .try_clone()
            .expect("cannot duplicate the log file handle");

        let mut command = self.server_command("postgres");
        command
            .arg("-D")
            .arg(&self.data_dir)
            .args(["-c", &format!("port={}", self.port)])
            .arg("-c")
            .arg(format!(
                "unix_socket_directories={}",
                self.socket_dir.display()
            ))
            .stdout(log)
            .stderr(log_for_stderr);
        for (name, value) in &self.settings {
            command.args(["-c", &format!("{name}={value}")]);
        }
        let parent = libc::pid_t::try_from(std::process::id()).expect("pid fits pid_t");
        // SAFETY: the hook only makes async-signal-safe syscalls. It runs
        // after std's setuid: a credential change clears PDEATHSIG.
        unsafe {
            command.pre_exec(move || {
                // Dies with the spawner thread (the kernel's "parent"), that
                // is with the test process. SIGINT = fast shutdown.
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGINT) != 0 {
                    return Err(io::Error::last_os_error());
                }
                // The parent may have died before the prctl took effect.
                if libc::getppid() != parent {
                    return Err(io::Error::from_raw_os_error(libc::ESRCH));
                }
                Ok(())
            });
        }

        let mut child = self
            .spawner
            .spawn(command)
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.bin("postgres").display()));
        match self.wait_until_ready(&mut child) {
            Ok(()) => Ok(child),
            Err(status) => {
                let _ = shut_down(&mut child, DISCARD_TIMEOUT);
                let log = format!("{}\n({status})", self.log_tail(log_start));
                if log.contains("Address already in use") || log.contains("could not bind") {
                    Err(StartError::PortTaken(log))
                } else {
                    Err(StartError::Failed(log))
                }
            }
        }
    }

    /// Polls `postmaster.pid` until our postmaster writes status `ready`
    /// there (it does so once it accepts connections). Err describes why not.
    fn wait_until_ready(&self, child: &mut Child) -> Result<(), String> {
        let deadline = Instant::now() + STARTUP_TIMEOUT;
        let pid_file = self.data_dir.join("postmaster.pid");
        let socket = self.socket_dir.join(format!(".s.PGSQL.{}", self.port));
        loop {
            if let Some(status) = child.try_wait().expect("cannot poll the postmaster") {
                return Err(format!("the server exited: {}", status));
            }
            // Lines: pid, data dir, start time, port, socket dir, listen
            // address, shared memory key, status. Checking the pid skips a
            // stale file left by a killed predecessor.
            if let Ok(text) = fs::read_to_string(&pid_file) {
                let lines: Vec<&str> = text.lines().collect();
                if lines.len() >= 8
                    && lines[0].trim() == child.id().to_string()
                    && lines[7].trim() == "ready"
                    && socket.exists()
                {
                    return Ok(());
                }
            }
            if Instant::now() >= deadline {
                return Err(format!("not ready after {STARTUP_TIMEOUT:?}"));
            }
            thread::sleep(POLL_INTERVAL);
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let postmaster = self
            .postmaster
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(mut child) = postmaster.take() {
            self.postmaster_pid.store(0, Ordering::SeqCst);
            let _ = shut_down(&mut child, DISCARD_TIMEOUT);
        }
        // Then the spawner thread ends and the TempDir is deleted.
    }
}

enum StartError {
    /// Another process holds the port; the server log is attached.
    PortTaken(String),
    /// Any other reason; the server log is attached.
    Failed(String),
}

/// The account the server runs as when the tests run as root.
#[derive(Clone, Debug)]
struct RunAs {
    name: String,
    uid: u32,
    gid: u32,
}

/// `None` when not root (the server runs as the caller); the `postgres`
/// account when root, since PostgreSQL refuses to run as root.
fn run_as() -> Option<RunAs> {
    static RUN_AS: OnceLock<Option<RunAs>> = OnceLock::new();
    RUN_AS
        .get_or_init(|| {
            // SAFETY: geteuid cannot fail.
            if unsafe { libc::geteuid() } != 0 {
                return None;
            }
            let name = "postgres";
            let (uid, gid) = lookup_user(name).unwrap_or_else(|| {
                panic!(
                    "the tests run as root, and PostgreSQL refuses to run as root, so its \
                     server runs as the `{name}` account, which does not exist. \
                     `apt-get install postgresql` (Debian/Ubuntu) creates it; or run the tests \
                     as a normal user."
                )
            });
            Some(RunAs {
                name: name.to_owned(),
                uid,
                gid,
            })
        })
        .clone()
}

/// `(uid, gid)` of a user, via the thread-safe getpwnam_r.
fn lookup_user(name: &str) -> Option<(u32, u32)> {
    let c_name = CString::new(name).expect("user name without NUL");
    let mut buffer = vec![0 as libc::c_char; 16 * 1024];
    // SAFETY: passwd is plain old data; getpwnam_r fills it in.
    let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
    let mut result: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: all pointers are valid for the stated sizes for the call.
    let rc = unsafe {
        libc::getpwnam_r(
            c_name.as_ptr(),
            &mut entry,
            buffer.as_mut_ptr(),
            buffer.len(),
            &mut result,
        )
    };
    (rc == 0 && !result.is_null()).then_some((entry.pw_uid, entry.pw_gid))
}

/// The directory of `initdb` and `postgres`: the highest-versioned
/// /usr/lib/postgresql/*/bin (Debian/Ubuntu), else `pg_config --bindir`,
/// else PATH. Panics with install instructions if there is none: a test that
/// needs PostgreSQL must not pass by skipping.
fn bin_dir() -> &'static Path {
    static BIN_DIR: OnceLock<PathBuf> = OnceLock::new();
    BIN_DIR.get_or_init(|| {
        let has_server =
            |dir: &Path| dir.join("initdb").is_file() && dir.join("postgres").is_file();

        let mut versioned: Vec<(Vec<u32>, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| {
                let version = entry
                    .file_name()
                    .to_str()?
                    .split('.')
                    .map(|part| part.parse::<u32>().ok())
                    .collect::<Option<Vec<u32>>>()?;
                Some((version, entry.path().join("bin")))
            })
            .filter(|(_, dir)| has_server(dir))
            .collect();
        versioned.sort();
        if let Some((_, dir)) = versioned.pop() {
            return dir;
        }

        if let Ok(output) = Command::new("pg_config").arg("--bindir").output() {
            let dir = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
            if output.status.success() && has_server(&dir) {
                return dir;
            }
        }

        if let Some(path) = std::env::var_os("PATH")
            && let Some(dir) = std::env::split_paths(&path).find(|dir| has_server(dir))
        {
            return dir;
        }

        panic!(
            "PostgreSQL server binaries (initdb, postgres) not found in /usr/lib/postgresql/*/bin, \
             `pg_config --bindir` or PATH. These tests start their own throwaway server and \
             need them installed: `apt-get install postgresql` on Debian/Ubuntu (the server is \
             not started or enabled by the tests), `dnf install postgresql-server` on Fedora, \
             `brew install postgresql@15` on macOS."
        )
    })
}

/// Whether the C.UTF-8 locale exists (glibc ≥ 2.35 has it built in; older
/// systems may not), else initdb gets `--no-locale`.
fn c_utf8_locale_exists() -> bool {
    // SAFETY: newlocale with a valid C string; the result is freed at once.
    unsafe {
        let locale = libc::newlocale(libc::LC_ALL_MASK, c"C.UTF-8".as_ptr(), std::ptr::null_mut());
        if locale.is_null() {
            return false;
        }
        libc::freelocale(locale);
        true
    }
}

/// Removes PG* variables (PGHOST, PGPORT, PGDATABASE, PGOPTIONS, PGSSLMODE…)
/// that would point a client or server somewhere else.
fn clear_pg_env(command: &mut Command) {
    for (name, _) in std::env::vars_os() {
        if name.as_bytes().starts_with(b"PG") {
            command.env_remove(name);
        }
    }
}

/// The lowest port [`free_port`] picks: above the registered ports most
/// services listen on.
const FIRST_PORT: u16 = 10_000;

/// Ports the clusters of this process have listened on. A stopped cluster
/// keeps its port for [`Cluster::restart`], so no other cluster may take it.
static CLAIMED_PORTS: Mutex<BTreeSet<u16>> = Mutex::new(BTreeSet::new());

/// A port that was free a moment ago, below the kernel's ephemeral range
/// and claimed for this process's clusters.
///
/// The kernel hands ephemeral ports to every `connect()` and every
/// `bind(…:0)`, so a port from that range can be taken by a test's client
/// socket or runtime listener while its cluster is stopped, and the restart
/// then fails with "Address already in use". A port below the range is
/// never handed out that way; the claim keeps it from another cluster.
fn free_port() -> u16 {
    let below = ephemeral_ports_start();
    if below <= FIRST_PORT {
        // A system whose ephemeral range starts this low has no port the
        // kernel never hands out: take one from the range.
        return TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("cannot bind 127.0.0.1:0 to pick a free port")
            .port();
    }
    let span = u64::from(below - FIRST_PORT);
    // A random start, so clusters of concurrent test processes spread out.
    let start = RandomState::new().build_hasher().finish() % span;
    let mut claimed = CLAIMED_PORTS.lock().unwrap_or_else(PoisonError::into_inner);
    (0..span)
        .map(|offset| FIRST_PORT + u16::try_from((start + offset) % span).expect("below the span"))
        .find(|port| !claimed.contains(port) && TcpListener::bind(("127.0.0.1", *port)).is_ok())
        .inspect(|port| {
            claimed.insert(*port);
        })
        .unwrap_or_else(|| panic!("no free port on 127.0.0.1 in {FIRST_PORT}..{below}"))
}

/// The first port of the kernel's ephemeral range
/// (`net.ipv4.ip_local_port_range`), or Linux's default when it cannot be
/// read.
fn ephemeral_ports_start() -> u16 {
    fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse().ok())
        .unwrap_or(32_768)
}

/// Percent-encodes a path for a URI query value: every byte but unreserved
/// characters and `/`.
fn percent_encode(text: &OsStr) -> String {
    const PATH: &AsciiSet = &NON_ALPHANUMERIC
        .remove(b'/')
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    percent_encoding::percent_encode(text.as_bytes(), PATH).to_string()
}

/// Fast shutdown: SIGINT, then SIGKILL if the postmaster has not exited
/// within `timeout`. Ok with its exit status if it exited on SIGINT.
fn shut_down(child: &mut Child, timeout: Duration) -> Result<ExitStatus, ExitStatus> {
    let pid = libc::pid_t::try_from(child.id()).expect("pid fits pid_t");
    // SAFETY: kill has no memory-safety preconditions; the child is not yet
    // reaped, so its pid cannot have been reused.
    unsafe { libc::kill(pid, libc::SIGINT) };
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) if Instant::now() < deadline => thread::sleep(POLL_INTERVAL),
            _ => break,
        }
    }
    let _ = child.kill();
    Err(child.wait().expect("cannot wait for the killed postmaster"))
}

/// The `atexit` handler of [`Cluster::shared`]: the same as `Drop`, without
/// the Mutex (a test thread may be stuck holding it) and without panicking
/// (a panic cannot unwind out of an `extern "C"` function).
extern "C" fn stop_shared_cluster_at_exit() {
    let Some(cluster) = SHARED.get() else {
        return;
    };
    let pid = cluster.postmaster_pid.swap(0, Ordering::SeqCst);
    if pid > 0 {
        // SAFETY: plain syscalls on our own unreaped child.
        unsafe {
            libc::kill(pid, libc::SIGINT);
            let deadline = Instant::now() + DISCARD_TIMEOUT;
            let mut status = 0;
            while libc::waitpid(pid, &mut status, libc::WNOHANG) == 0 {
                if Instant::now() >= deadline {
                    libc::kill(pid, libc::SIGKILL);
                    libc::waitpid(pid, &mut status, 0);
                    break;
                }
                thread::sleep(POLL_INTERVAL);
            }
        }
    }
    let _ = fs::remove_dir_all(cluster.root.path());
}

/// A thread that lives as long as its cluster and spawns its postmaster.
///
/// PR_SET_PDEATHSIG fires when the *thread* that forked the child exits, not
/// the process, and the test harness runs each test on its own short-lived
/// thread: a postmaster forked there would be shut down as soon as the test
/// that started (or restarted) it returned.
struct Spawner {
    requests: Option<mpsc::Sender<SpawnRequest>>,
    thread: Option<JoinHandle<()>>,
}

type SpawnRequest = (Command, mpsc::Sender<io::Result<Child>>);

impl Spawner {
    fn new() -> Spawner {
        let (requests, incoming) = mpsc::channel::<SpawnRequest>();
        let thread = thread::Builder::new()
            .name("postgres-spawner".to_owned())
            .spawn(move || {
                for (mut command, reply) in incoming {
                    let _ = reply.send(command.spawn());
                }
            })
            .expect("cannot start the postmaster spawner thread");
        Spawner {
            requests: Some(requests),
            thread: Some(thread),
        }
    }

    fn spawn(&self, command: Command) -> io::Result<Child> {
        let (reply, answer) = mpsc::channel();
        let gone = || io::Error::other("the postmaster spawner thread is gone");
        self.requests
            .as_ref()
            .ok_or_else(gone)?
            .send((command, reply))
            .map_err(|_| gone())?;
        answer.recv().map_err(|_| gone())?
    }
}

impl Drop for Spawner {
    fn drop(&mut self) {
        // Closing the channel ends the thread's loop.
        drop(self.requests.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
