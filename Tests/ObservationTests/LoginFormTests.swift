import Foundation
import Testing
import TinyTestSupport

@testable import TinyObservation

/// The classic login form: actions update the model; observation updates the view.
@Suite(.timeLimit(suiteTimeLimit), .watchdog) @MainActor struct LoginFormTests {
  final class LoginModel: Sendable {
    let username = Atom("")
    let password = Atom("")
    let canLogin: DerivedAtom<Bool>
    let canReset: DerivedAtom<Bool>

    init() {
      canLogin = DerivedAtom(username, password) { !$0.isEmpty && !$1.isEmpty }
      canReset = DerivedAtom(username, password) { !$0.isEmpty || !$1.isEmpty }
    }

    func reset() {
      username.set("")
      password.set("")
    }
  }

  /// Stands in for the view controller: plain properties where the real one has controls.
  @MainActor final class LoginView {
    let model: LoginModel
    let center: NotificationCenter
    let observations = ObservationGroup()
    var usernameText = "?"
    var passwordText = "?"
    var loginEnabled = true
    var resetEnabled = true
    var bottomInset = 0.0
    var updates = 0

    init(model: LoginModel, center: NotificationCenter) {
      self.model = model
      self.center = center
    }

    func viewDidLoad() {
      observations.observe(model.username) { [weak self] in self?.show(\.usernameText, $0.new) }
      observations.observe(model.password) { [weak self] in self?.show(\.passwordText, $0.new) }
      observations.observe(model.canLogin) { [weak self] in self?.show(\.loginEnabled, $0.new) }
      observations.observe(model.canReset) { [weak self] in self?.show(\.resetEnabled, $0.new) }
      observations.observe(
        notification: .testKeyboard, center: center,
        carrying: { $0.userInfo?["height"] as? Double ?? 0 }
      ) { [weak self] height in
        self?.bottomInset = height
      }
    }

    func viewWillAppear() { observations.begin() }
    func viewWillDisappear() { observations.end() }

    // Actions: they only update the model.
    func typeUsername(_ text: String) { model.username.set(text) }
    func typePassword(_ text: String) { model.password.set(text) }
    func tapReset() { model.reset() }

    /// Shows a value in a "control", and counts the update.
    private func show<Value>(_ control: ReferenceWritableKeyPath<LoginView, Value>, _ value: Value)
    {
      self[keyPath: control] = value
      updates += 1
    }
  }

  @Test func theLoginForm() async {
    let center = NotificationCenter()
    let model = LoginModel()
    let view = LoginView(model: model, center: center)
    view.viewDidLoad()
    #expect(view.usernameText == "?")  // nothing before the view appears

    view.viewWillAppear()
    #expect(view.usernameText == "" && view.passwordText == "")
    #expect(!view.loginEnabled && !view.resetEnabled)
    #expect(view.updates == 4)  // one initial value per source

    view.typeUsername("ada")  // on the main queue: shown synchronously
    #expect(view.usernameText == "ada")
    #expect(!view.loginEnabled && view.resetEnabled)
    view.typePassword("secret")
    #expect(view.loginEnabled)
    // 4 initial + username, canReset + password, canLogin: a derived value that stayed equal
    // (canLogin after the username, canReset after the password) updated nothing.
    #expect(view.updates == 8)

    startThread {
      center.post(name: .testKeyboard, object: nil, userInfo: ["height": 291.0])
    }.wait()
    await mainQueueTurn()
    #expect(view.bottomInset == 291)

    view.tapReset()
    #expect(view.usernameText == "" && view.passwordText == "")
    #expect(!view.loginEnabled && !view.resetEnabled)

    // Saved credentials arrive from a background load: delivered on the main queue.
    startThread {
      model.username.set("grace")
      model.password.set("hopper")
    }.wait()
    #expect(view.usernameText == "")
    await mainQueueTurn()
    #expect(view.usernameText == "grace" && view.passwordText == "hopper")
    #expect(view.loginEnabled)

    view.viewWillDisappear()
    let updatesWhileHidden = view.updates
    view.typeUsername("")
    center.post(name: .testKeyboard, object: nil, userInfo: ["height": 0.0])
    #expect(view.updates == updatesWhileHidden)  // a hidden view is not updated
    #expect(view.bottomInset == 291)

    view.viewWillAppear()  // catches up through the initial values
    #expect(view.usernameText == "")
    #expect(!view.loginEnabled && view.resetEnabled)
    view.viewWillDisappear()
  }

  @Test func theViewAndTheModelAreReleased() {
    weak var weakView: LoginView?
    weak var weakModel: LoginModel?
    do {
      let model = LoginModel()
      let view = LoginView(model: model, center: NotificationCenter())
      weakView = view
      weakModel = model
      view.viewDidLoad()
      view.viewWillAppear()
      view.typeUsername("ada")
    }
    #expect(weakView == nil)
    #expect(weakModel == nil)
  }
}
