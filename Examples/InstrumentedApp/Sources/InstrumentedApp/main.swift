// An app in miniature: a NavigationRouter that follows the app's model file and writes each
// navigation event to an NDJSON log through FileEventSink, with live checks by the rules
// `navreplay audit` applies offline.
//
//   swift run InstrumentedApp [LOG_DIRECTORY [MODEL_FILE]]
//   navreplay audit --model MODEL_FILE LOG_DIRECTORY
import Foundation
import NavLog  // FileEventSink
import NavModel  // NavigationModel
import NavReplay  // Finding
import NavRouter  // NavigationRouter

let arguments = Array(CommandLine.arguments.dropFirst())
let logDirectory = arguments.first ?? "NavigationLogs"
let modelPath = arguments.count > 1 ? arguments[1] : "navigation-model.json"

// The app's navigation model: the file it ships (a bundle resource in an iOS app), the one
// `navreplay audit --model` reads. This one declares deep links.
let model: NavigationModel
do {
    model = try NavigationModel.load(json: [UInt8](Data(contentsOf: URL(fileURLWithPath: modelPath))))
} catch {
    print("cannot use the model file \(modelPath): \(error)")  // a broken model names its JSON path
    exit(1)
}

// The sink creates the log's directory if it is missing. A write never throws: a failed one
// is counted (errorCount, lastError) and handed to onError, here the app's own logging.
let log = try FileEventSink(
    path: logDirectory + "/navigation.ndjson", syncPolicy: .interval(events: 50),
    onError: { error in print("navigation log: \(error)") })

let router = NavigationRouter(
    model: model, appVersion: "3.2.0", platform: "ios", sink: log,
    liveChecks: true)  // fold every event as navreplay does; meant for debug builds
router.onViolation = { (finding: Finding) in print("live check: \(finding)") }

router.start()  // session_start, screen_view
router.push("welcome")  // route_push, screen_view
router.present("paywall", style: .sheet)  // allowed in the onboarding flow
router.dismiss("paywall")
router.apply(command: "goAuthorizedTab1Root")  // flows change only through a command
router.push("list")
router.push("detail")
print("deep link: \(router.open(deepLink: "poc://tab2/post/42"))")  // resolved: its command, then its steps
if let reason = router.push("signup").refusal {
    print("refused, nothing written: \(reason)")  // signup is not a route of tab2
}

try log.close()
print("\(log.linesWritten) event(s) in \(log.path), \(log.errorCount) write error(s)")
