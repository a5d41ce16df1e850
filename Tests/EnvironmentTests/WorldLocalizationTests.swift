import Foundation
import Testing
import TinyEnvironment
import TinyTestSupport

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct WorldLocalizationTests {
  /// English, Spanish and Brazilian Portuguese, with English as the development language; the
  /// Spanish table lacks "farewell".
  static func withAppBundle(
    developmentLanguage: String? = "en", _ body: (Bundle) throws -> Void
  ) throws {
    let bundle = try temporaryBundle(
      [
        "en": ["Localizable": ["greeting": "Hello", "farewell": "Goodbye"]],
        "es": ["Localizable": ["greeting": "Hola"], "Menu": ["open": "Abrir"]],
        "pt_BR": ["Localizable": ["greeting": "Olá", "farewell": "Tchau"]],
      ],
      developmentLanguage: developmentLanguage)
    defer { try? FileManager.default.removeItem(atPath: bundle.bundlePath) }
    try body(bundle)
  }

  @Test(
    arguments: [
      (["es"], "greeting", "Hola"),
      (["es-MX"], "greeting", "Hola"),  // the language alone
      (["es_ES", "en"], "greeting", "Hola"),
      (["fr", "es"], "greeting", "Hola"),  // the first language the bundle has
      (["en"], "greeting", "Hello"),
      (["pt-BR"], "greeting", "Olá"),  // BCP 47 name, underscore folder
      (["fr"], "greeting", "Hello"),  // no such language: the development language
      ([], "greeting", "Hello"),  // no preference: the development language
      (["es"], "farewell", "Goodbye"),  // missing in Spanish: the development language
      (["es"], "unknown", "fallback"),  // in no table: the value
    ])
  func resolvesThroughThePreferredLanguages(languages: [String], key: String, expected: String)
    throws
  {
    try Self.withAppBundle { bundle in
      withWorld(.mock) {
        withWorld({ $0.preferredLanguages = languages }) {
          #expect(Current.localizedString(key, value: "fallback", bundle: bundle) == expected)
        }
      }
    }
  }

  @Test func otherTables() throws {
    try Self.withAppBundle { bundle in
      var world = World.mock
      world.preferredLanguages = ["es"]
      #expect(
        world.localizedString("open", value: "Open", table: "Menu", bundle: bundle) == "Abrir")
      #expect(
        world.localizedString("open", value: "Open", table: "Missing", bundle: bundle) == "Open")
      world.preferredLanguages = ["en"]
      #expect(world.localizedString("open", value: "Open", table: "Menu", bundle: bundle) == "Open")
    }
  }

  @Test func withoutAnInfoPlistThereIsNoDevelopmentLanguage() throws {
    try Self.withAppBundle(developmentLanguage: nil) { bundle in
      var world = World.mock
      world.preferredLanguages = ["fr"]
      #expect(world.localizedString("greeting", value: "fallback", bundle: bundle) == "fallback")
      world.preferredLanguages = ["es"]
      #expect(world.localizedString("greeting", value: "fallback", bundle: bundle) == "Hola")
      #expect(world.localizedString("farewell", value: "", bundle: bundle) == "")
    }
  }

  @Test func theMainBundleOfATestRunnerHasNoLocalizations() {
    // Bundle.main here is an executable's folder without an Info.plist, the case where
    // Bundle.developmentLocalization stops a Linux program.
    withWorld(.mock) {
      #expect(Current.localizedString("greeting", value: "Hello") == "Hello")
    }
  }

  @Test func theProcessLanguageSettingsPlayNoPart() throws {
    try Self.withAppBundle { bundle in
      var world = World.live
      world.preferredLanguages = ["es"]
      #expect(world.localizedString("greeting", value: "", bundle: bundle) == "Hola")
      world.preferredLanguages = ["pt-BR"]
      #expect(world.localizedString("greeting", value: "", bundle: bundle) == "Olá")
    }
  }
}
