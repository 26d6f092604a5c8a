//! Turns off Nagle's algorithm on the DevTools connection.
//!
//! chromiumoxide opens its WebSocket without `TCP_NODELAY`. With Nagle on, a command written
//! while an earlier one is still unacknowledged waits in the kernel until the browser's answer
//! carries the ACK: a click's press waits for the pointer move's answer, and Chromium answers
//! a move only at its next frame, so every click cost a frame (about 17 ms) instead of a
//! millisecond or two. The socket is not reachable through chromiumoxide, so this finds it
//! among our open descriptors by its peer address (the DevTools host and port) and sets the
//! option on it. Setting it on any other connection to that endpoint only lowers latency.

use std::net::IpAddr;
use std::net::SocketAddr;

/// Sets `TCP_NODELAY` on every TCP socket of this process connected to the host and port of
/// `ws_url`. Returns how many sockets it set; 0 (and no error) when nothing matched or
/// `/proc/self/fd` is unreadable, since the connection works either way, only slower.
pub(crate) fn set_on_devtools_sockets(ws_url: &str) -> usize {
    let Some((host, port)) = host_and_port(ws_url) else {
        return 0;
    };
    let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
        return 0;
    };
    let mut set = 0;
    for entry in entries.flatten() {
        let Some(fd) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<libc::c_int>().ok())
        else {
            continue;
        };
        let Some(peer) = peer_address(fd) else {
            continue;
        };
        let host_matches = match host {
            Some(ip) => peer.ip() == ip,
            None => true,
        };
        if peer.port() == port && host_matches && set_nodelay(fd) {
            set += 1;
        }
    }
    set
}

/// The host (when it is an IP address) and port of a `ws://host:port/path` URL.
fn host_and_port(ws_url: &str) -> Option<(Option<IpAddr>, u16)> {
    let rest = ws_url
        .strip_prefix("ws://")
        .or_else(|| ws_url.strip_prefix("wss://"))?;
    let authority = rest.split('/').next()?;
    let (host, port) = authority.rsplit_once(':')?;
    let port = port.parse().ok()?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    Some((host.parse().ok(), port))
}

/// The peer of socket `fd`, when `fd` is a connected IPv4 or IPv6 socket.
#[allow(unsafe_code)]
fn peer_address(fd: libc::c_int) -> Option<SocketAddr> {
    // SAFETY: sockaddr_storage is plain integers, for which all-zero bytes are valid.
    let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let mut len = libc::socklen_t::try_from(std::mem::size_of::<libc::sockaddr_storage>()).ok()?;
    // SAFETY: `storage` is large enough for any address and `len` holds its size; getpeername
    // writes at most `len` bytes and fails harmlessly (ENOTSOCK, EBADF, ENOTCONN) for
    // descriptors that are not connected sockets.
    let answer = unsafe {
        libc::getpeername(
            fd,
            std::ptr::addr_of_mut!(storage).cast::<libc::sockaddr>(),
            &mut len,
        )
    };
    if answer != 0 {
        return None;
    }
    match libc::c_int::from(storage.ss_family) {
        libc::AF_INET => {
            // SAFETY: the family says the storage holds a sockaddr_in.
            let v4 = unsafe { *std::ptr::addr_of!(storage).cast::<libc::sockaddr_in>() };
            let ip = std::net::Ipv4Addr::from(u32::from_be(v4.sin_addr.s_addr));
            Some(SocketAddr::new(ip.into(), u16::from_be(v4.sin_port)))
        }
        libc::AF_INET6 => {
            // SAFETY: the family says the storage holds a sockaddr_in6.
            let v6 = unsafe { *std::ptr::addr_of!(storage).cast::<libc::sockaddr_in6>() };
            let ip = std::net::Ipv6Addr::from(v6.sin6_addr.s6_addr);
            Some(SocketAddr::new(ip.into(), u16::from_be(v6.sin6_port)))
        }
        _ => None,
    }
}

/// Sets `TCP_NODELAY` on `fd`; whether it took.
#[allow(unsafe_code)]
fn set_nodelay(fd: libc::c_int) -> bool {
    let on: libc::c_int = 1;
    let Ok(size) = libc::socklen_t::try_from(std::mem::size_of::<libc::c_int>()) else {
        return false;
    };
    // SAFETY: setsockopt reads `size` bytes from `&on`, a live c_int; a wrong descriptor only
    // makes it fail.
    let answer = unsafe {
        libc::setsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_NODELAY,
            std::ptr::addr_of!(on).cast::<libc::c_void>(),
            size,
        )
    };
    answer == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_host_and_port_from_devtools_urls() {
        assert_eq!(
            host_and_port("ws://127.0.0.1:9222/devtools/browser/abc"),
            Some((Some(IpAddr::from([127, 0, 0, 1])), 9222))
        );
        assert_eq!(
            host_and_port("ws://localhost:41000/devtools/browser/x"),
            Some((None, 41000))
        );
        assert_eq!(
            host_and_port("ws://[::1]:9222/devtools"),
            Some((Some("::1".parse().unwrap()), 9222))
        );
        assert_eq!(host_and_port("http://127.0.0.1:9222/"), None);
        assert_eq!(host_and_port("ws://127.0.0.1/devtools"), None);
    }

    #[test]
    fn sets_nodelay_on_a_connected_socket_to_that_endpoint_only() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let client = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        let (server_side, _) = listener.accept().unwrap();
        assert!(!client.nodelay().unwrap());

        let url = format!("ws://127.0.0.1:{port}/devtools/browser/x");
        assert_eq!(set_on_devtools_sockets(&url), 1);
        assert!(client.nodelay().unwrap());
        // The accepted side's peer is the client's ephemeral port: left alone.
        assert!(!server_side.nodelay().unwrap());
    }
}
