import Testing

@testable import Location

/// The authorization state machine, transition by transition, with no I/O.
@Suite struct LocationAuthorizationTests {
    let ask = AuthorizationPolicy()

    @Test func notDeterminedAsksOnATerminal() {
        var machine = LocationAuthorization(stored: nil, policy: ask)
        #expect(machine.status == .notDetermined)
        #expect(machine.requestSensing(interactive: true) == .prompt)
    }

    @Test func notDeterminedNeverAsksWithoutATerminal() {
        var machine = LocationAuthorization(stored: nil, policy: ask)
        #expect(machine.requestSensing(interactive: false) == .refuse(.notDetermined))
        #expect(machine.status == .notDetermined)
    }

    @Test func answeringYesPersistsAndProceeds() {
        var machine = LocationAuthorization(stored: nil, policy: ask)
        _ = machine.requestSensing(interactive: true)
        #expect(
            machine.userAnswered(.allowWhenInUse(.full))
                == .persist(AuthorizationDecision(status: .authorizedWhenInUse, accuracy: .full)))
        #expect(machine.requestSensing(interactive: false) == .proceed(accuracy: .full))
    }

    @Test func answeringNoPersistsDenied() {
        var machine = LocationAuthorization(stored: nil, policy: ask)
        _ = machine.requestSensing(interactive: true)
        #expect(machine.userAnswered(.deny) == .persist(AuthorizationDecision(status: .denied, accuracy: .full)))
        #expect(machine.requestSensing(interactive: true) == .refuse(.denied))
    }

    @Test func anAnswerWithoutAQuestionIsIgnored() {
        var machine = LocationAuthorization(stored: nil, policy: ask)
        #expect(machine.userAnswered(.allowAlways(.full)) == .refuse(.notDetermined))
        #expect(machine.status == .notDetermined)
    }

    @Test func whenInUseIsNotEnoughForBackgroundUse() {
        var machine = LocationAuthorization(
            stored: AuthorizationDecision(status: .authorizedWhenInUse, accuracy: .full), policy: ask)
        #expect(machine.requestSensing(interactive: false, background: true) == .refuse(.needsAlways))
        #expect(
            machine.grant(always: true, accuracy: .full)
                == .persist(AuthorizationDecision(status: .authorizedAlways, accuracy: .full)))
        #expect(machine.requestSensing(interactive: false, background: true) == .proceed(accuracy: .full))
    }

    @Test func forbidPolicyRestrictsAndCannotBeLifted() {
        var machine = LocationAuthorization(
            stored: AuthorizationDecision(status: .authorizedAlways, accuracy: .full),
            policy: AuthorizationPolicy(mode: .forbid))
        #expect(machine.status == .restricted)
        #expect(machine.requestSensing(interactive: true) == .refuse(.restricted))
        #expect(machine.grant(always: false, accuracy: .full) == .refuse(.restricted))
        #expect(machine.reset() == .refuse(.restricted))
        #expect(machine.deny() == .refuse(.restricted))
    }

    @Test func policyCapsAccuracyEvenForAFullGrant() {
        var machine = LocationAuthorization(
            stored: AuthorizationDecision(status: .authorizedWhenInUse, accuracy: .full),
            policy: AuthorizationPolicy(mode: .ask, maximumAccuracy: .reduced))
        #expect(machine.requestSensing(interactive: false) == .proceed(accuracy: .reduced))
        #expect(
            machine.grant(always: false, accuracy: .full)
                == .persist(AuthorizationDecision(status: .authorizedWhenInUse, accuracy: .reduced)))
    }

    @Test func allowPolicyPreAuthorizes() {
        var machine = LocationAuthorization(stored: nil, policy: AuthorizationPolicy(mode: .allow))
        #expect(machine.status == .authorizedAlways)
        #expect(machine.requestSensing(interactive: false, background: true) == .proceed(accuracy: .full))
    }

    @Test func resetForgetsTheDecision() {
        var machine = LocationAuthorization(
            stored: AuthorizationDecision(status: .denied, accuracy: .full), policy: ask)
        #expect(machine.reset() == .clear)
        #expect(machine.status == .notDetermined)
    }

    @Test func aStoredRestrictedIsNotTrusted() {
        // Only the administrator's policy can restrict; a stale file saying so is ignored.
        let machine = LocationAuthorization(
            stored: AuthorizationDecision(status: .restricted, accuracy: .full), policy: ask)
        #expect(machine.status == .notDetermined)
    }
}
