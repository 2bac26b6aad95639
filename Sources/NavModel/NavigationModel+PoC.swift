extension NavigationModel {
    /// The model file of the PoC router (seed 001), as CONTRACT §4 gives it, plus its deep links.
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
          },
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

    /// The built-in default model: the PoC router of seed 001.
    public static let poc: NavigationModel = {
        do {
            return try NavigationModel.load(json: pocJSON)
        } catch {
            // The text above is a constant checked by the tests; this cannot happen at run time.
            fatalError("the built-in PoC model is invalid: \(error)")
        }
    }()
}
