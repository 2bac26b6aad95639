import NavEvents
import NavModel
import NavRouter
import NavTestSupport

/// A started harness in the PoC's authorized flow on tab1, reached the only legal way: by a
/// command.
func authorizedHarness(liveChecks: Bool = true) -> RouterHarness {
    let harness = RouterHarness(liveChecks: liveChecks)
    harness.router.apply(command: "goAuthorizedTab1Root")
    return harness
}

/// A started harness whose onboarding stack holds the given routes.
func onboardingHarness(_ routes: [String]) -> RouterHarness {
    let harness = RouterHarness()
    for route in routes { harness.router.push(route) }
    return harness
}

extension Array where Element == NavigationEvent {
    var payloads: [NavigationEvent.Payload] { map(\.payload) }
    var names: [EventName] { map(\.name) }
}

func screen(_ stack: String, _ route: String?, params: RouteParams? = nil) -> NavigationEvent.Payload {
    .screenView(.stack(stack, route: route), params: params)
}

func modalScreen(_ modal: String) -> NavigationEvent.Payload {
    .screenView(.modal(modal), params: nil)
}
