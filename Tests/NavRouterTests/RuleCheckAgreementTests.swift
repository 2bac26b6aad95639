import NavEvents
import NavModel
import NavReplay
import NavRouter
import NavTestSupport
import Testing

/// The router refuses with the rules' own checks: what it refuses is what the check reports.
@Suite("The router and the rules' checks")
struct RuleCheckAgreementTests {
    static let model = try! NavigationModel.load(
        json: """
            {"model_version": 1, "name": "agreement", "initial": {"flow": "main"},
             "flows": {"main": {"stack": "main", "max_modals": 2}, "other": {"stack": "side"}},
             "stacks": {"main": {"routes": ["a", "b"], "singletons": ["b"], "max_depth": 3,
                                 "positions": [{"index": 0, "one_of": ["a"]}]},
                        "side": {"routes": ["a"]}},
             "modals": {"sheet": {"styles": ["sheet"]}, "any": {}, "mainOnly": {"flows": ["main"]}, "third": {}}}
            """)

    @Test func everyPresentIsRefusedExactlyWhenModalNotAllowedSaysSo() {
        let harness = RouterHarness(model: Self.model)
        let router = harness.router
        for modal in ["sheet", "any", "mainOnly", "third", "undeclared"] {
            for style in ModalStyle.allCases {
                let state = router.state
                let problem = ModalNotAllowed.check(
                    presenting: modal, style: style, flow: state.flow, tab: state.tab, presented: state.modals, model: Self.model,
                    top: { state.stacks[$0]?.last })
                let already = state.modals.contains(modal)
                let result = router.present(modal, style: style)
                #expect(result.isApplied == (problem == nil && !already), "\(modal) as \(style.rawValue): \(result)")
            }
        }
        #expect(router.violations.isEmpty)
    }

    @Test func everyPushIsRefusedExactlyWhenARouteCheckSaysSo() throws {
        let harness = RouterHarness(model: Self.model)
        let router = harness.router
        let spec = try #require(Self.model.stacks["main"])
        for route in ["b", "a", "z", "b", "a", "a", "a"] {
            let routes = router.state.stacks["main"] ?? []
            let number = try #require(StackUnknown.check("main", model: Self.model))
            let broken =
                RouteUnknown.check(route, stack: "main", number: number, model: Self.model) != nil
                || RouteSingleton.check(
                    route, params: nil, stack: "main", spec: spec, routes: routes, params: routes.map { _ in nil },
                    below: 0..<routes.count) != nil
                || !RoutePosition.check(route, at: routes.count, spec: spec, flow: "main").isEmpty
                || StackOutOfRange.check(entering: route, stack: "main", spec: spec, depthAfter: routes.count + 1) != nil
            let result = router.push(route, on: "main")
            #expect(result.isApplied == !broken, "push \(route) on \(routes): \(result)")
        }
        #expect(router.violations.isEmpty)
    }
}
