import NavEvents
import NavModel
import NavRouter

/// The pages-with-widgets system: full-screen pages over a browser-like history
/// (`NavigationManager`: navigate, back, root) with widgets (side sheets, dialogs, context menus)
/// that overlay the page, at most one active at a time.
///
/// The history is one stack, `pages`, above the home page (its root). Widgets are modals that
/// may only be presented as `overlay` (`modals.<name>.styles`), and the flow allows one modal
/// at a time (`max_modals: 1`). A page overlays only its own widgets (`modals.<name>.routes`):
/// the book page has the side sheet (the home and daily pages have none); the document names
/// dialogs and context menus as widgets to come, which the model gives the project and event
/// pages. A widget goes with its page: the router dismisses it before the page leaves the top.
public enum PagesWidgetsSystem {
    public static let modelJSON = """
        {
          "model_version": 1,
          "name": "pages-widgets",
          "$comment": "Follows the NavigationManager design (NavigationManager, Page, AnyPage, Widget, BaseWidget, SideSheet, BookPage, DailyPage, HomePage, ContentView) and its published code: NavigationManager.swift (navigate, navigateBack, navigateToRoot), Widget.swift, BookPage.swift with its side sheets.",
          "description": "Navigate, back and root over a page history; a page overlays only its own widgets, one active at a time.",
          "initial": {"flow": "pages"},
          "flows": {
            "pages": {"stack": "pages", "max_modals": 1}
          },
          "stacks": {
            "pages": {"routes": ["bookPage", "dailyPage", "projectPage", "eventPage"]}
          },
          "modals": {
            "sideSheet": {"styles": ["overlay"], "routes": ["bookPage"]},
            "dialog": {"styles": ["overlay"], "routes": ["projectPage", "eventPage"]},
            "contextMenu": {"styles": ["overlay"], "routes": ["projectPage", "eventPage"]}
          }
        }
        """

    public static let system = SeedSystem(
        id: "pages-widgets", seed: "003", title: "Pages with widget overlays", modelJSON: modelJSON,
        invariants: ["modal.not_allowed", "modal.not_presented", "route.unknown", "stack.out_of_range"],
        cleanSessions: { [reading()] },
        violatingSessions: { [twoWidgets(), backAtHome(), widgetOffItsPage()] })

    static let start: Int64 = PoCScenarios.day + 18_000_000  // 09:00Z

    // MARK: Clean

    /// Home → book (side sheet open and closed) → daily → project (dialog, then a context
    /// menu) → back → root; the same page type twice in the history.
    static func reading() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-pages-reading", seed: 301, startMilliseconds: start, model: PagesWidgetsSystem.system.model)
        driver.step { $0.start() }
        driver.act("go to the book page") {
            $0.push("bookPage", params: RouteParams([("title", .string("Sample Book")), ("author", .string("John Doe"))]))
        }
        driver.act("drag: the side sheet") { $0.present("sideSheet", style: .overlay) }
        driver.act("close it") { $0.dismiss("sideSheet") }
        driver.act("go to the daily page") { $0.push("dailyPage", params: RouteParams([("date", .string("2026-11-20"))])) }
        driver.act("go to a project") { $0.push("projectPage") }
        driver.act("a dialog") { $0.present("dialog", style: .overlay) }
        driver.act("dismiss it") { $0.dismissTop() }
        driver.act("a context menu") { $0.present("contextMenu", style: .overlay) }
        driver.act("dismiss it") { $0.dismissTop() }
        driver.act("back") { $0.pop() }
        driver.act("another book") { $0.push("bookPage", params: RouteParams([("title", .string("Other"))])) }
        driver.act("an event") { $0.push("eventPage") }
        driver.act("home") { $0.popToRoot() }
        return SampleSession(id: driver.router.sessionID, events: driver.events)
    }

    // MARK: Violations

    /// A second widget while one is active, a widget shown as a sheet, and a widget closed twice.
    static func twoWidgets() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-pages-bad-widgets", seed: 311, startMilliseconds: start + 3_600_000, model: PagesWidgetsSystem.system.model)
        driver.step { $0.start() }
        driver.act("go to the book page") { $0.push("bookPage") }
        driver.act("drag: the side sheet") { $0.present("sideSheet", style: .overlay) }
        var events = driver.events
        events.append(
            Tamper.forge(after: events, .modalPresent(modal: "dialog", style: .overlay), correlation: "long-press", id: "pages-forged-0001")
        )
        events.append(Tamper.forge(after: events, .modalDismiss(modal: "dialog"), correlation: "tap-outside", id: "pages-forged-0002"))
        events.append(Tamper.forge(after: events, .modalDismiss(modal: "sideSheet"), correlation: "close", id: "pages-forged-0003"))
        events.append(Tamper.forge(after: events, .modalDismiss(modal: "sideSheet"), correlation: "close-again", id: "pages-forged-0004"))
        events.append(
            Tamper.forge(after: events, .modalPresent(modal: "contextMenu", style: .sheet), correlation: "menu", id: "pages-forged-0005"))
        return SampleSession(id: driver.router.sessionID, events: events)
    }

    /// A side sheet over the daily page, which has none, and a book page popped with its side
    /// sheet still shown.
    static func widgetOffItsPage() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-pages-bad-page", seed: 313, startMilliseconds: start + 3_800_000, model: PagesWidgetsSystem.system.model)
        driver.step { $0.start() }
        driver.act("go to the daily page") { $0.push("dailyPage") }
        var events = driver.events
        events.append(
            Tamper.forge(after: events, .modalPresent(modal: "sideSheet", style: .overlay), correlation: "drag", id: "pages-forged-0201"))
        events.append(Tamper.forge(after: events, .modalDismiss(modal: "sideSheet"), correlation: "close", id: "pages-forged-0202"))
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "pages", from: "dailyPage", to: "bookPage", params: nil), correlation: "book",
                id: "pages-forged-0203"))
        events.append(
            Tamper.forge(after: events, .modalPresent(modal: "sideSheet", style: .overlay), correlation: "drag-2", id: "pages-forged-0204"))
        events.append(
            Tamper.forge(
                after: events, .routePop(stack: "pages", from: "bookPage", to: "dailyPage", amount: .count(1)), correlation: "back",
                id: "pages-forged-0205"))
        return SampleSession(id: driver.router.sessionID, events: events)
    }

    /// "Go Back" on the home page (`navigateBack` on an empty history), and a page type that
    /// is not one of the app's pages.
    static func backAtHome() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-pages-bad-back", seed: 312, startMilliseconds: start + 3_700_000, model: PagesWidgetsSystem.system.model)
        driver.step { $0.start() }
        driver.act("go to the daily page") { $0.push("dailyPage") }
        driver.act("back") { $0.pop() }
        var events = driver.events
        events.append(
            Tamper.forge(
                after: events, .routePop(stack: "pages", from: nil, to: nil, amount: .count(1)), correlation: "back-at-home",
                id: "pages-forged-0101"))
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "pages", from: nil, to: "settingsPage", params: nil), correlation: "settings",
                id: "pages-forged-0102"))
        return SampleSession(id: driver.router.sessionID, events: events)
    }
}
