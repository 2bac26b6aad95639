import NavEvents
import NavModel
import NavRouter

/// The modular tabs system: a tabbed app (Hatch's modular navigation) with three tabs and independent
/// stacks, destinations pushed or presented as sheets and full-screen covers, sheets and covers
/// that carry their own navigation stack (`modals.<name>.stack`), smart dismiss, `close` of a
/// whole modal flow, and deep links that go through a tab, then into a feature.
///
/// Its `NavigationCoordinator` presents by context (`presentation: contexts`): each tab and each
/// sheet or cover is a coordinator with one slot, a sheet or a cover; a second one presented
/// from the same coordinator is ignored, a coordinator's `pop()` does nothing while its slot is
/// taken (a push still lands on its path, behind), and `dismiss()` takes the slot's modal, then
/// pops, then asks the parent to dismiss the context. Each modal names the contexts that
/// present it (`from`).
///
/// A deep link selects its tab as the root (a command per tab that resets that tab's stack
/// and dismisses what is presented; links that present a sheet or cover use commands that do
/// not dismiss, since a command that dismisses must leave no modal at the end of its group),
/// then takes its steps in the declared order; `navreplay` checks that they land in that order.
public enum ModularTabsSystem {
    public static let modelJSON = """
        {
          "model_version": 1,
          "name": "modular-tabs",
          "$comment": "Follows HatchModularNavigation's RFC and its code: NavigationCoordinator.swift (present, pop, popToRoot, dismiss, close, closeSheetOrCover), NavigationDestinationHandler.swift; NavigationCoordinatorTests.swift.",
          "description": "Three tabs with independent stacks; one sheet or cover per coordinator context, with its own stack; smart dismiss and close; deep links through a tab into a feature.",
          "initial": {"flow": "adult", "tab": "home"},
          "flows": {
            "adult": {"tabs": ["home", "routine", "library"], "presentation": "contexts"}
          },
          "stacks": {
            "home": {"routes": ["sleepDetail", "soundPicker"]},
            "routine": {"routes": ["routineDetail", "stepDetail"]},
            "library": {"routes": ["collection", "detail", "other"]},
            "routineEditor": {"routes": ["editStep", "pickSound"]},
            "deviceSetup": {"routes": ["pairDevice", "permissions", "done"]}
          },
          "modals": {
            "routineEditor": {"styles": ["sheet"], "stack": "routineEditor", "from": ["routine"]},
            "deviceSetup": {"styles": ["cover"], "stack": "deviceSetup", "from": ["library"]},
            "player": {"styles": ["cover"], "from": ["home", "routine", "library", "routineEditor"]},
            "favorites": {"styles": ["sheet"], "from": ["home", "routine", "library"]}
          },
          "commands": {
            "openHomeRoot": {"flow": "adult", "tab": "home", "reset": ["home"], "dismiss_modals": true},
            "openRoutineRoot": {"flow": "adult", "tab": "routine", "reset": ["routine"], "dismiss_modals": true},
            "openLibraryRoot": {"flow": "adult", "tab": "library", "reset": ["library"], "dismiss_modals": true},
            "editRoutine": {"flow": "adult", "tab": "routine", "reset": ["routine"]},
            "playOnHome": {"flow": "adult", "tab": "home", "reset": ["home"]}
          },
          "deep_links": {
            "fallback_command": "openHomeRoot",
            "links": [
              {"pattern": "library/other", "command": "openLibraryRoot",
               "steps": [{"tab": "library"}, {"stack": "library", "push": "other"}]},
              {"pattern": "library/detail/:id", "command": "openLibraryRoot",
               "steps": [{"tab": "library"}, {"stack": "library", "push": "collection"}, {"stack": "library", "push": "detail"}]},
              {"pattern": "routine/:id/edit", "command": "editRoutine",
               "steps": [{"tab": "routine"}, {"stack": "routine", "push": "routineDetail"}, {"present": "routineEditor"},
                         {"stack": "routineEditor", "push": "editStep"}]},
              {"pattern": "home/player", "command": "playOnHome",
               "steps": [{"tab": "home"}, {"present": "player"}]}
            ]
          }
        }
        """

    public static let system = SeedSystem(
        id: "modular-tabs", seed: "002", title: "Tabs with sheets, covers and deep links", modelJSON: modelJSON,
        invariants: [
            "command.postcondition", "modal.not_allowed", "modal.not_presented", "screen.not_visible", "stack.not_owned",
            "stack.out_of_range",
        ],
        cleanSessions: { [tabsAndSheets(), deepLinks()] },
        violatingSessions: { [linkOutOfOrder(), dismissNothing(), wrongStyle(), oneSlotPerContext()] })

    static let start: Int64 = PoCScenarios.day + 14_400_000  // 08:00Z

    // MARK: Clean

    /// Independent tab stacks, a sheet with its own stack, smart dismiss at every level, a
    /// cover over the sheet, and `close` of the whole sheet flow.
    static func tabsAndSheets() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-tabs-sheets", seed: 201, startMilliseconds: start, model: ModularTabsSystem.system.model)
        driver.step { $0.start() }
        driver.act("push on home") { $0.push("sleepDetail") }
        driver.act("routine tab") { $0.selectTab("routine") }
        driver.act("push on routine") { $0.push("routineDetail", params: RouteParams([("routine_id", .string("r-3"))])) }
        driver.act("present the editor sheet") { $0.present("routineEditor", style: .sheet) }
        driver.act("push inside the sheet") { $0.push("editStep") }
        driver.act("push inside the sheet") { $0.push("pickSound") }
        driver.act("smart dismiss: pops the sheet's stack") { $0.dismiss() }
        driver.act("a cover over the sheet") { $0.present("player", style: .cover) }
        driver.act("smart dismiss from the sheet: the cover it presented") { $0.dismiss(from: .modal("routineEditor")) }
        driver.act("smart dismiss: pops the sheet's stack to its root") { $0.dismiss() }
        driver.act("smart dismiss at the sheet's root: its parent dismisses it") { $0.dismiss() }
        driver.act("smart dismiss on the tab: pops") { $0.dismiss() }
        driver.act("library tab") { $0.selectTab("library") }
        driver.act("push on library") { $0.push("collection") }
        driver.act("device setup cover") { $0.present("deviceSetup", style: .cover) }
        driver.act("pair") { $0.push("pairDevice") }
        driver.act("permissions") { $0.push("permissions") }
        driver.act("close the whole setup flow") { $0.close() }
        driver.act("favorites sheet") { $0.present("favorites", style: .sheet) }
        driver.act("smart dismiss from the tab: the sheet it presented") { $0.dismiss(from: .base) }
        driver.act("home tab: its stack was kept") { $0.selectTab("home") }
        return SampleSession(id: driver.router.sessionID, events: driver.events)
    }

    /// Deep links that span a tab and a feature, one into a sheet's own stack, one unknown
    /// (falls back to the home tab's root).
    static func deepLinks() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-tabs-links", seed: 202, startMilliseconds: start + 60_000, model: ModularTabsSystem.system.model)
        driver.step { $0.start() }
        driver.act("push on home") { $0.push("sleepDetail") }
        driver.link("hatch://library/detail/17")
        driver.act("back") { $0.dismiss() }
        driver.link("hatch://routine/r-5/edit")
        driver.act("push in the editor") { $0.push("pickSound") }
        driver.link("hatch://library/other")
        driver.step { _ = $0.open(deepLink: "hatch://shop/promo") }  // unsupported: the home tab's root
        driver.link("hatch://home/player")
        driver.act("close the player") { $0.close() }
        return SampleSession(id: driver.router.sessionID, events: driver.events)
    }

    // MARK: Violations

    /// A deep link whose feature is pushed before its tab is selected, and one whose steps are
    /// pushed in the wrong order.
    static func linkOutOfOrder() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-tabs-bad-links", seed: 211, startMilliseconds: start + 3_600_000, model: ModularTabsSystem.system.model)
        driver.step { $0.start() }
        var events = driver.events
        let link = "tabs-link-1"
        events.append(
            Tamper.forge(
                after: events, .deepLink(url: "hatch://library/other", outcome: .resolved), correlation: link, id: "tabs-forged-0001"))
        events.append(
            Tamper.forge(
                after: events, .commandApplied(command: "openLibraryRoot", fromFlow: "adult", toFlow: "adult"), correlation: link,
                id: "tabs-forged-0002", delayMilliseconds: 0))
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "library", from: nil, to: "other", params: nil), correlation: link, id: "tabs-forged-0003",
                delayMilliseconds: 0))
        events.append(
            Tamper.forge(
                after: events, .tabSwitch(from: "home", to: "library"), correlation: link, id: "tabs-forged-0004", delayMilliseconds: 0))
        events.append(
            Tamper.forge(
                after: events, .screenView(.stack("library", route: "other"), params: nil), correlation: link, id: "tabs-forged-0005",
                delayMilliseconds: 0))
        let second = "tabs-link-2"
        events.append(
            Tamper.forge(
                after: events, .deepLink(url: "hatch://library/detail/4", outcome: .resolved), correlation: second, id: "tabs-forged-0006"))
        events.append(
            Tamper.forge(
                after: events, .commandApplied(command: "openLibraryRoot", fromFlow: "adult", toFlow: "adult"), correlation: second,
                id: "tabs-forged-0007", delayMilliseconds: 0))
        events.append(
            Tamper.forge(
                after: events, .routePop(stack: "library", from: "other", to: nil, amount: .toRoot), correlation: second,
                id: "tabs-forged-0008", delayMilliseconds: 0))
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "library", from: nil, to: "detail", params: nil), correlation: second,
                id: "tabs-forged-0009", delayMilliseconds: 0))
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "library", from: "detail", to: "collection", params: nil), correlation: second,
                id: "tabs-forged-0010", delayMilliseconds: 0))
        return SampleSession(id: driver.router.sessionID, events: events)
    }

    /// Dismisses with nothing to dismiss: the sheet dismissed twice, a pop at a tab's root, a
    /// stale coordinator of the closed sheet that still pushes, and a screen it still reports.
    static func dismissNothing() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-tabs-bad-dismiss", seed: 212, startMilliseconds: start + 3_700_000, model: ModularTabsSystem.system.model)
        driver.step { $0.start() }
        driver.act("routine tab") { $0.selectTab("routine") }
        driver.act("present the editor sheet") { $0.present("routineEditor", style: .sheet) }
        driver.act("push inside the sheet") { $0.push("editStep") }
        driver.act("close the sheet") { $0.close() }
        var events = driver.events
        events.append(
            Tamper.forge(after: events, .modalDismiss(modal: "routineEditor"), correlation: "dismiss-again", id: "tabs-forged-0101"))
        events.append(
            Tamper.forge(
                after: events, .routePop(stack: "routine", from: nil, to: nil, amount: .count(1)), correlation: "dismiss-at-root",
                id: "tabs-forged-0102"))
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "routineEditor", from: nil, to: "pickSound", params: nil), correlation: "stale-sheet",
                id: "tabs-forged-0103"))
        events.append(
            Tamper.forge(
                after: events, .screenView(.stack("routineEditor", route: "pickSound"), params: nil), correlation: "stale-sheet",
                id: "tabs-forged-0104", delayMilliseconds: 0))
        return SampleSession(id: driver.router.sessionID, events: events)
    }

    /// What the coordinators ignore: a cover presented from the library tab while its slot
    /// shows the favorites sheet, and a pop of the routine tab while it shows the editor.
    static func oneSlotPerContext() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-tabs-bad-slots", seed: 214, startMilliseconds: start + 3_900_000, model: ModularTabsSystem.system.model)
        driver.step { $0.start() }
        driver.act("library tab") { $0.selectTab("library") }
        driver.act("favorites sheet") { $0.present("favorites", style: .sheet) }
        var events = driver.events
        events.append(
            Tamper.forge(after: events, .modalPresent(modal: "deviceSetup", style: .cover), correlation: "setup", id: "tabs-forged-0301"))
        events.append(Tamper.forge(after: events, .modalDismiss(modal: "favorites"), correlation: "close", id: "tabs-forged-0302"))
        events.append(Tamper.forge(after: events, .tabSwitch(from: "library", to: "routine"), correlation: "tab", id: "tabs-forged-0303"))
        events.append(
            Tamper.forge(
                after: events, .routePush(stack: "routine", from: nil, to: "routineDetail", params: nil), correlation: "open",
                id: "tabs-forged-0304"))
        events.append(
            Tamper.forge(after: events, .modalPresent(modal: "routineEditor", style: .sheet), correlation: "edit", id: "tabs-forged-0305"))
        events.append(
            Tamper.forge(
                after: events, .routePop(stack: "routine", from: "routineDetail", to: nil, amount: .count(1)), correlation: "back",
                id: "tabs-forged-0306"))
        return SampleSession(id: driver.router.sessionID, events: events)
    }

    /// A full-screen-only destination shown as a sheet.
    static func wrongStyle() -> SampleSession {
        let driver = ScenarioDriver(
            sessionID: "s-tabs-bad-style", seed: 213, startMilliseconds: start + 3_800_000, model: ModularTabsSystem.system.model)
        driver.step { $0.start() }
        var events = driver.events
        events.append(
            Tamper.forge(after: events, .modalPresent(modal: "player", style: .sheet), correlation: "player", id: "tabs-forged-0201"))
        return SampleSession(id: driver.router.sessionID, events: events)
    }
}
