import NavModel

enum NavigationModelFixtures {
    static let poc = NavigationModel.pocJSON
}
