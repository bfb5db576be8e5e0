import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP socket on 127.0.0.1 for the fixtures: binding to test whether a port is free,
/// connecting to talk to gpsd or the HTTP double. Closed by `close()`.
struct LoopbackSocket {
    let fd: Int32

    init() throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FixtureError("socket() failed") }
    }

    /// Reads give up after `seconds` instead of blocking forever.
    func setReadTimeout(seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func bind(port: Int) -> Bool { withAddress(port: port) { Glibc.bind(fd, $0, $1) == 0 } }

    func connect(port: Int) -> Bool { withAddress(port: port) { Glibc.connect(fd, $0, $1) == 0 } }

    func close() { _ = Glibc.close(fd) }

    private func withAddress(port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Bool) -> Bool {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }
}
