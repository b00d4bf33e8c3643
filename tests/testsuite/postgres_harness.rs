//! The PostgreSQL test harness itself (`support::postgres`), against a
//! real server: the shared cluster, databases, both URIs, stop/restart and
//! cleanup. Run as root it exercises the `postgres`-account path.

use std::collections::HashSet;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::process::Output;
use std::thread;
use std::time::{Duration, Instant};

use crate::support::postgres::{Cluster, PASSWORD, SUPERUSER};

/// psql on a connection URI (TCP or socket), as a client of the cluster.
fn psql_uri(cluster: &Cluster, uri: &str, sql: &str) -> Output {
    cluster
        .client_command("psql")
        .args([
            uri,
            "-v",
            "ON_ERROR_STOP=1",
            "-X",
            "-q",
            "-A",
            "-t",
            "-c",
            sql,
        ])
        .output()
        .expect("cannot run psql")
}

fn stdout_of(output: &Output) -> String {
    assert!(
        output.status.success(),
        "psql failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// Whether a process with this pid exists (kill with signal 0 probes only).
fn process_exists(pid: u32) -> bool {
    let pid = libc::pid_t::try_from(pid).expect("pid fits pid_t");
    // SAFETY: signal 0 checks for existence and permission, sends nothing.
    unsafe { libc::kill(pid, 0) == 0 }
}

/// The uid a process runs as, from the owner of /proc/PID.
fn process_uid(pid: u32) -> u32 {
    std::fs::metadata(format!("/proc/{pid}"))
        .expect("the process is running")
        .uid()
}

#[test]
fn shared_cluster_gives_distinct_usable_databases() {
    let started = Instant::now();
    let cluster = Cluster::shared();
    eprintln!("Cluster::shared() took {:?}", started.elapsed());
    assert!(
        std::ptr::eq(cluster, Cluster::shared()),
        "one shared cluster"
    );

    let started = Instant::now();
    let first = cluster.new_database();
    eprintln!("new_database() took {:?}", started.elapsed());
    let second = cluster.new_database();
    assert_ne!(first, second);

    for (db, value) in [(&first, 1), (&second, 2)] {
        let out = cluster.psql(
            db,
            &format!("CREATE TABLE t(x int); INSERT INTO t VALUES ({value}); SELECT x FROM t"),
        );
        assert_eq!(out.trim(), value.to_string());
    }
    // Each database kept its own row: they really are distinct.
    assert_eq!(cluster.psql(&first, "SELECT x FROM t").trim(), "1");
    assert_eq!(cluster.psql(&second, "SELECT x FROM t").trim(), "2");
    assert_eq!(
        cluster.psql(&first, "SELECT current_user").trim(),
        SUPERUSER
    );
    assert_eq!(
        cluster.psql(&first, "SHOW server_version_num").trim()[..2],
        *"15",
        "PostgreSQL 15 as on CI (/usr/lib/postgresql/15)"
    );
}

#[test]
fn socket_uri_names_the_database_socket_dir_and_port() {
    let cluster = Cluster::shared();
    let uri = cluster.create_database();
    let dbname = uri
        .strip_prefix(&format!("postgres://{SUPERUSER}@/"))
        .and_then(|rest| rest.split('?').next())
        .expect("socket URI of the documented form")
        .to_owned();
    assert_eq!(
        uri,
        format!(
            "postgres://{SUPERUSER}@/{dbname}?host={}&port={}",
            cluster.socket_dir().display(),
            cluster.port()
        )
    );
    let socket = cluster
        .socket_dir()
        .join(format!(".s.PGSQL.{}", cluster.port()));
    assert!(
        socket.to_str().expect("UTF-8 path").len() < 100,
        "Unix socket path too long: {}",
        socket.display()
    );
    // libpq reads the same URI: socket dir from `host`, no password.
    let out = psql_uri(
        cluster,
        &uri,
        "SELECT current_database() || ' ' || coalesce(inet_server_addr()::text, 'socket')",
    );
    assert_eq!(stdout_of(&out), format!("{dbname} socket"));
}

#[test]
fn tcp_uri_needs_the_password() {
    let cluster = Cluster::shared();
    let dbname = cluster.new_database();
    let uri = cluster.tcp_uri(&dbname);
    assert_eq!(
        uri,
        format!(
            "postgres://{SUPERUSER}:{PASSWORD}@127.0.0.1:{}/{dbname}",
            cluster.port()
        )
    );
    let out = psql_uri(
        cluster,
        &uri,
        "SELECT current_database() || ' ' || inet_server_addr()",
    );
    assert_eq!(stdout_of(&out), format!("{dbname} 127.0.0.1/32"));

    let wrong = uri.replace(PASSWORD, "not-the-password");
    let out = psql_uri(cluster, &wrong, "SELECT 1");
    assert!(!out.status.success(), "a wrong password must be refused");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("password authentication failed"),
        "unexpected error: {stderr}"
    );
}

#[test]
fn create_database_is_safe_from_many_threads() {
    let cluster = Cluster::shared();
    let started = Instant::now();
    let names: Vec<String> = thread::scope(|scope| {
        let workers: Vec<_> = (0..16)
            .map(|_| scope.spawn(|| cluster.new_database()))
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().expect("create_database panicked"))
            .collect()
    });
    eprintln!("16 concurrent new_database() took {:?}", started.elapsed());
    let distinct: HashSet<&String> = names.iter().collect();
    assert_eq!(
        distinct.len(),
        names.len(),
        "names must be unique: {names:?}"
    );
    for name in &names {
        assert_eq!(cluster.psql(name, "SELECT 1").trim(), "1");
    }
}

#[test]
fn server_runs_with_the_harness_settings_and_owner() {
    let cluster = Cluster::shared();
    let pid = cluster
        .postmaster_pid()
        .expect("the shared cluster is running");
    for (setting, expected) in [
        ("fsync", "off"),
        ("max_connections", "300"),
        ("shared_buffers", "64MB"),
        ("listen_addresses", "127.0.0.1"),
        ("server_encoding", "UTF8"),
        ("password_encryption", "scram-sha-256"),
    ] {
        assert_eq!(
            cluster.psql("postgres", &format!("SHOW {setting}")).trim(),
            expected,
            "{setting}"
        );
    }

    let data = std::fs::metadata(cluster.data_dir()).expect("data dir");
    assert_eq!(data.permissions().mode() & 0o777, 0o700);
    assert!(
        !cluster.dir().join("pwfile").exists(),
        "the password file is deleted after initdb"
    );
    // SAFETY: geteuid cannot fail.
    let euid = unsafe { libc::geteuid() };
    if euid == 0 {
        // PostgreSQL refuses root: the server runs as the `postgres` account.
        assert_ne!(process_uid(pid), 0, "the postmaster must not run as root");
        assert_eq!(
            data.uid(),
            process_uid(pid),
            "data dir owned by the server's user"
        );
    } else {
        assert_eq!(process_uid(pid), euid);
        assert_eq!(data.uid(), euid);
    }
}

#[test]
fn start_with_overrides_settings() {
    let cluster = Cluster::start_with(&[("fsync", "on"), ("work_mem", "8MB")]);
    assert_eq!(cluster.psql("postgres", "SHOW fsync").trim(), "on");
    assert_eq!(cluster.psql("postgres", "SHOW work_mem").trim(), "8MB");
    assert_eq!(
        cluster.psql("postgres", "SHOW full_page_writes").trim(),
        "off"
    );
}

#[test]
fn private_cluster_stops_and_restarts_with_its_data() {
    let started = Instant::now();
    let cluster = Cluster::start();
    eprintln!("Cluster::start() took {:?}", started.elapsed());
    let port = cluster.port();
    let dbname = cluster.new_database();
    cluster.psql(&dbname, "CREATE TABLE t(x int); INSERT INTO t VALUES (42)");
    let first_pid = cluster.postmaster_pid().expect("running");

    cluster.stop();
    assert_eq!(cluster.postmaster_pid(), None);
    assert!(!process_exists(first_pid), "the postmaster has exited");
    let refused = cluster
        .try_psql(&dbname, "SELECT 1")
        .expect_err("connections must fail while the server is stopped");
    assert!(
        refused.contains("No such file or directory") || refused.contains("Connection refused"),
        "unexpected error: {refused}"
    );
    let out = psql_uri(&cluster, &cluster.tcp_uri(&dbname), "SELECT 1");
    assert!(!out.status.success(), "TCP must fail too while stopped");

    let started = Instant::now();
    cluster.restart();
    eprintln!("Cluster::restart() took {:?}", started.elapsed());
    assert_eq!(cluster.port(), port);
    assert_ne!(cluster.postmaster_pid(), Some(first_pid));
    assert_eq!(cluster.psql(&dbname, "SELECT x FROM t").trim(), "42");
    let out = psql_uri(&cluster, &cluster.tcp_uri(&dbname), "SELECT x FROM t");
    assert_eq!(stdout_of(&out), "42");

    // restart() on a running server stops it first.
    cluster.restart();
    assert_eq!(cluster.psql(&dbname, "SELECT x FROM t").trim(), "42");
}

/// A fault test stops its server while its clients and other tests open
/// sockets: the port must still be the server's when it restarts. The
/// harness picks ports below the kernel's ephemeral range, which the kernel
/// never hands to `connect()` or `bind(…:0)`, and no other cluster of the
/// process takes a claimed one.
#[test]
fn a_stopped_clusters_port_stays_free_for_its_restart() {
    let cluster = Cluster::start();
    let port = cluster.port();
    let range = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .expect("the kernel's ephemeral port range");
    let ephemeral_start: u16 = range.split_whitespace().next().unwrap().parse().unwrap();
    assert!(
        port < ephemeral_start,
        "port {port} is in the ephemeral range ({range})"
    );

    cluster.stop();
    let listeners: Vec<_> = (0..500)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect();
    assert!(
        listeners
            .iter()
            .all(|listener| listener.local_addr().unwrap().port() != port)
    );
    let other = Cluster::start();
    assert_ne!(
        other.port(),
        port,
        "another cluster took the stopped one's port"
    );
    cluster.restart();
    assert_eq!(cluster.psql("postgres", "SELECT 1").trim(), "1");
}

#[test]
fn dropping_a_private_cluster_stops_it_and_deletes_its_dir() {
    let cluster = Cluster::start();
    let pid = cluster.postmaster_pid().expect("running");
    let dir = cluster.dir().to_owned();
    assert!(process_exists(pid));
    assert!(dir.starts_with("/tmp"));
    drop(cluster);
    assert!(!process_exists(pid), "postmaster {pid} still exists");
    assert!(!dir.exists(), "{} still exists", dir.display());
}

/// The postmaster gets a parent-death signal, which the kernel sends when
/// the *thread* that spawned it exits; the harness spawns from a thread of
/// its own so the server outlives the test thread that started it.
#[test]
fn server_outlives_the_threads_that_start_and_restart_it() {
    let cluster = thread::spawn(Cluster::start)
        .join()
        .expect("Cluster::start panicked");
    // Long enough for a parent-death SIGINT to have shut the server down.
    thread::sleep(Duration::from_millis(500));
    let pid = cluster.postmaster_pid().expect("running");
    assert!(process_exists(pid));
    assert_eq!(cluster.psql("postgres", "SELECT 1").trim(), "1");

    thread::scope(|scope| {
        scope.spawn(|| {
            cluster.stop();
            cluster.restart();
        });
    });
    thread::sleep(Duration::from_millis(500));
    let pid = cluster.postmaster_pid().expect("running");
    assert!(process_exists(pid));
    assert_eq!(cluster.psql("postgres", "SELECT 1").trim(), "1");
}
