extension NavigationModel {
    /// The model file of the PoC router, exactly as docs/events-and-rules.md gives it: the
    /// default model of an audit. It declares no deep links, so a `deep_link` group is checked
    /// only as its command (`pocWithDeepLinksJSON` adds them).
    public static let pocJSON = """
        {
          "model_version": 1,
          "name": "poc",
          "initial": {"flow": "onboarding", "tab": "tab1"},
          "flows": {
            "onboarding": {"stack": "onboarding"},
            "authorized": {"tabs": ["tab1", "tab2"]}
          },
          "stacks": {
            "onboarding": {"routes": ["welcome", "signup", "permissions", "profileSetup"]},
            "tab1": {"routes": ["list", "detail", "settings"], "singletons": ["settings"]},
            "tab2": {"routes": ["feed", "post", "profile"]}
          },
          "modals": {
            "paywall": {"flows": ["onboarding"]},
            "success": {"flows": ["onboarding", "authorized"]}
          },
          "commands": {
            "goAuthorizedTab1Root": {"flow": "authorized", "tab": "tab1", "reset": ["tab1"]},
            "goAuthorizedTab2Root": {"flow": "authorized", "tab": "tab2", "reset": ["tab2"]},
            "logoutToOnboarding": {"flow": "onboarding", "reset": ["onboarding", "tab1", "tab2"], "dismiss_modals": true}
          }
        }
        """

    /// The PoC model plus the deep links of its router: what the sample
    /// router resolves URLs with, and, written to a file for `--model`, what an audit also
    /// checks each link against (its command applied, its steps landed): `pocJSON` with one
    /// more member before its closing brace (`pocJSON` ends with `\n}`).
    public static let pocWithDeepLinksJSON =
        String(pocJSON.dropLast(2)) + ",\n" + """
              "deep_links": {
                "fallback_command": "goAuthorizedTab1Root",
                "links": [
                  {"pattern": "tab1", "command": "goAuthorizedTab1Root"},
                  {"pattern": "tab1/list", "command": "goAuthorizedTab1Root", "steps": [{"stack": "tab1", "push": "list"}]},
                  {"pattern": "tab1/detail/:id", "command": "goAuthorizedTab1Root",
                   "steps": [{"stack": "tab1", "push": "list"}, {"stack": "tab1", "push": "detail"}]},
                  {"pattern": "settings", "command": "goAuthorizedTab1Root", "steps": [{"stack": "tab1", "push": "settings"}]},
                  {"pattern": "tab2", "command": "goAuthorizedTab2Root"},
                  {"pattern": "tab2/post/:id", "command": "goAuthorizedTab2Root",
                   "steps": [{"stack": "tab2", "push": "feed"}, {"stack": "tab2", "push": "post"}]},
                  {"pattern": "tab2/profile/:user", "command": "goAuthorizedTab2Root", "steps": [{"stack": "tab2", "push": "profile"}]}
                ]
              }
            }
            """

    /// The built-in default model: the PoC router's, as docs/events-and-rules.md gives it.
    public static let poc = builtIn(pocJSON)

    /// The PoC model with its router's deep links (`pocWithDeepLinksJSON`).
    public static let pocWithDeepLinks = builtIn(pocWithDeepLinksJSON)

    private static func builtIn(_ json: String) -> NavigationModel {
        do {
            return try NavigationModel.load(json: json)
        } catch {
            // The texts above are constants checked by the tests; this cannot happen at run time.
            fatalError("a built-in PoC model is invalid: \(error)")
        }
    }
}
