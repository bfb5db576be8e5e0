import Foundation
import HTTPService
import Testing

@testable import Serve

/// `/day.svg` was made afresh for every request (about half a second of CPU each): 128
/// requests from 8 addresses took the device page down, and `width` gave 1,361 figures to
/// ask for. Figures are now kept per logbook version, 80 px width step and minute, and made
/// two at a time at most; a third is 503 with Retry-After.
@Suite struct FigureCacheTests {
    let now = Date(timeIntervalSince1970: 1_795_999_990)  // 10 s into a minute

    @Test func widthsComeInEightyPixelStepsAndKeysPerVersionAndMinute() {
        #expect(FigureCache.width(240) == 240 && FigureCache.width(319) == 240 && FigureCache.width(800) == 800)
        #expect(FigureCache.width(879) == 800 && FigureCache.width(1600) == 1600)
        #expect(Set((240...1600).map(FigureCache.width)).count == 18)
        let key = FigureCache.key(version: 7, width: 800, now: now)
        #expect(key == FigureCache.key(version: 7, width: 800, now: now.addingTimeInterval(20)), "the same minute")
        #expect(key != FigureCache.key(version: 8, width: 800, now: now), "a commit makes it anew")
        #expect(key != FigureCache.key(version: 7, width: 800, now: now.addingTimeInterval(60)), "the next minute")
    }

    @Test func aFigureIsMadeOnceAndAThirdMakingAtOnceIsRefused() {
        let cache = FigureCache()
        guard case .make = cache.lookUp("a") else { Issue.record("the first asks to make it"); return }
        guard case .make = cache.lookUp("b") else { Issue.record("a second figure may be made beside it"); return }
        guard case .busy = cache.lookUp("c") else { Issue.record("a third at once is refused"); return }
        cache.finish("a", reply: ServedReply(status: 200, contentType: "image/svg+xml", text: "<svg/>"))
        guard case .kept(let reply) = cache.lookUp("a") else { Issue.record("made once, kept"); return }
        #expect(reply.text == "<svg/>")
        guard case .make = cache.lookUp("c") else { Issue.record("room again"); return }
        // An answer that is no figure is not kept.
        cache.finish("b", reply: ServedReply(status: 404, text: "nothing to draw\n"))
        guard case .make = cache.lookUp("b") else { Issue.record("a 404 is made again"); return }
    }

    @Test func aRequestForAFigureBeingMadeWaitsForIt() async {
        let cache = FigureCache()
        guard case .make = cache.lookUp("a") else { Issue.record("first"); return }
        let waiter = Task.detached { () -> String? in
            if case .kept(let reply) = cache.lookUp("a") { return reply.text }
            return nil
        }
        cache.finish("a", reply: ServedReply(status: 200, contentType: "image/svg+xml", text: "<svg id='a'/>"))
        #expect(await waiter.value == "<svg id='a'/>")
    }
}
