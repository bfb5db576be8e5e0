import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Whether a TCP address and port could be listened on now, found by binding it for a
/// moment (as the server would, with `SO_REUSEADDR`) and letting it go at once.
///
/// Contract: ``probe(host:port:)`` never listens and never connects; it says `free`
/// (a bind succeeded), `taken` (EADDRINUSE: a program listens there) or `unusable` with
/// the system's reason (not this machine's address, a privileged port, no such family).
public enum ListeningPort: Sendable, Equatable {
    case free
    case taken
    case unusable(String)

    /// `host` is an IPv4 or IPv6 literal.
    public static func probe(host: String, port: Int) -> ListeningPort {
        let six = host.contains(":")
        let socketFD = socket(six ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { return .unusable(String(cString: strerror(errno))) }
        defer { close(socketFD) }
        var yes: Int32 = 1
        setsockopt(socketFD, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let result: Int32
        if six {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { return .unusable("not an IPv6 address") }
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return .unusable("not an IPv4 address") }
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        if result == 0 { return .free }
        let error = errno
        return error == EADDRINUSE ? .taken : .unusable(String(cString: strerror(error)))
    }
}
