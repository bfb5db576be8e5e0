import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where a browser on another machine opens the page: a server listening on every address
/// (`0.0.0.0`, `::`) is at the host's name and at each of its network addresses, never at
/// `0.0.0.0`, which a phone cannot open.
///
/// Contract: ``urls(host:port:)`` is the one URL of a specific address; for a wildcard, the
/// host's name (`http://pi.local:8642/` when the name has no dot, as mDNS names it) and
/// every IPv4 address of an interface that is up and not loopback, in the order the system
/// lists them; at least one URL always (`127.0.0.1` when nothing else is found).
enum ServedAddresses {
    /// The URLs `host:port` is reached at.
    static func urls(host: String, port: Int) -> [String] {
        guard host == "0.0.0.0" || host == "::" || host.isEmpty else {
            return ["http://\(host.contains(":") ? "[\(host)]" : host):\(port)/"]
        }
        var urls: [String] = []
        if let name = hostName() { urls.append("http://\(name.contains(".") ? name : name + ".local"):\(port)/") }
        urls += interfaceAddresses().map { "http://\($0):\(port)/" }
        return urls.isEmpty ? ["http://127.0.0.1:\(port)/"] : urls
    }

    private static func hostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty || name == "localhost" ? nil : name
    }

    /// The IPv4 addresses of the interfaces that are up and not loopback.
    private static func interfaceAddresses() -> [String] {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0 else { return [] }
        defer { freeifaddrs(first) }
        var addresses: [String] = []
        var next = first
        while let entry = next {
            next = entry.pointee.ifa_next
            let flags = Int32(entry.pointee.ifa_flags)
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0
            else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                var raw = v4.pointee.sin_addr
                _ = inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
            }
            let shown = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !shown.isEmpty, !addresses.contains(shown) { addresses.append(shown) }
        }
        return addresses
    }
}
