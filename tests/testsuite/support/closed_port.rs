//! A port on 127.0.0.1 that refuses connections for as long as the test
//! holds it. Binding 127.0.0.1:0 with a listener and dropping it leaves a
//! port any other socket may take a moment later (a runtime another test
//! starts, a client's source port), and the "refused" test then reaches a
//! server. A socket that is bound but never listens keeps the port: the
//! kernel answers every connection to it with a reset, hands it to no
//! `bind(…:0)` and no `connect()`, and refuses it to every other `bind`.

use std::net::{Ipv4Addr, SocketAddrV4};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

pub struct ClosedPort {
    /// Bound, not listening; closed on drop.
    _socket: OwnedFd,
    port: u16,
}

impl ClosedPort {
    pub fn new() -> ClosedPort {
        // SAFETY: socket() has no preconditions; the fd it returns is owned
        // here and nowhere else.
        let socket = unsafe {
            let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
            assert!(fd >= 0, "socket: {}", std::io::Error::last_os_error());
            OwnedFd::from_raw_fd(fd)
        };
        let mut addr = libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: 0,
            sin_addr: libc::in_addr {
                s_addr: u32::from(Ipv4Addr::LOCALHOST).to_be(),
            },
            sin_zero: [0; 8],
        };
        let mut len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
        // SAFETY: `addr` is a sockaddr_in of `len` bytes that outlives both
        // calls, and the fd is open.
        unsafe {
            let raw = (&raw mut addr).cast::<libc::sockaddr>();
            assert_eq!(
                libc::bind(socket.as_raw_fd(), raw, len),
                0,
                "bind 127.0.0.1:0: {}",
                std::io::Error::last_os_error()
            );
            assert_eq!(
                libc::getsockname(socket.as_raw_fd(), raw, &mut len),
                0,
                "getsockname: {}",
                std::io::Error::last_os_error()
            );
        }
        ClosedPort {
            _socket: socket,
            port: u16::from_be(addr.sin_port),
        }
    }

    pub fn addr(&self) -> SocketAddrV4 {
        SocketAddrV4::new(Ipv4Addr::LOCALHOST, self.port)
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr())
    }
}
