import Foundation
import Testing

@testable import Collector

/// The devices asked for rows again (a failover, a restore) that `/metrics` names: the
/// latest 64, with a count of every time, so that a broker without ACLs, where anyone may
/// claim to be a device told of rows, cannot grow the collector's memory or its series.
struct RewoundDevicesTests {
    @Test func theLatestDevicesAreNamedAndEveryOneIsCounted() {
        var state = CollectorState()
        let start = Date(timeIntervalSince1970: 1_796_000_000)
        for number in 0..<70 { state.rewind("pi-\(number)", at: start.addingTimeInterval(Double(number))) }
        state.rewind("pi-69", at: start.addingTimeInterval(100))
        #expect(state.rewoundTotal == 71)
        #expect(state.rewound.count == CollectorState.rewoundKept)
        #expect(state.rewound["pi-5"] == nil && state.rewound["pi-6"] != nil, "the oldest went first")
        #expect(state.rewound["pi-69"] == start.addingTimeInterval(100), "asked again: its latest time")
        let text = CollectorMetrics.text(state, openMetrics: false)
        #expect(text.contains("airloc_collector_devices_rewound_total 71"), "\(text)")
        #expect(text.contains("airloc_collector_device_rewound_timestamp_seconds{device=\"pi-69\"} 1796000100"))
        #expect(!text.contains("device=\"pi-0\""))
    }
}
