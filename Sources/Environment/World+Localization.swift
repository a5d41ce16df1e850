import Foundation

extension World {
  /// Returns the localized string for `key` in the first of the world's
  /// ``preferredLanguages`` that `bundle` has, else in the bundle's development language, else
  /// `value`.
  ///
  /// Tests pin the language by setting `preferredLanguages`; the process's own language
  /// settings play no part:
  ///
  /// ```swift
  /// withWorld({ $0.preferredLanguages = ["es"] }) {
  ///   Current.localizedString("greeting", value: "Hello")   // "Hola"
  /// }
  /// ```
  ///
  /// How it resolves:
  /// - For each preferred language in order, the bundle's `.lproj` folder for it is looked
  ///   up: the exact name (`"pt-BR"`), the same with an underscore (`"pt_BR"`), then the
  ///   language alone (`"pt"`). The first language with a folder is the one used; a key
  ///   missing from its table does not move on to the next language.
  /// - Then the development language from the bundle's `Info.plist`
  ///   (`CFBundleDevelopmentRegion`), when the bundle has one.
  /// - Then `value`, unchanged (even when empty).
  ///
  /// It reads `.lproj` folders directly rather than through
  /// `Bundle.preferredLocalizations(from:forPreferences:)`, which ignores the preferences on
  /// Linux, and never calls `Bundle.developmentLocalization`, which stops a Linux program for
  /// a bundle without an `Info.plist`.
  ///
  /// - Parameters:
  ///   - key: The key in the strings table.
  ///   - value: The string to return when no table has the key.
  ///   - table: The table's name without the extension; `nil` for `Localizable`.
  ///   - bundle: The bundle to search; the main bundle by default.
  /// - Returns: The localized string, or `value`.
  /// - Complexity: A few file-system lookups per preferred language.
  public func localizedString(
    _ key: String, value: String, table: String? = nil, bundle: Bundle = .main
  ) -> String {
    let missing = "\u{1}TinyEnvironment.missing\u{1}"
    var languages: [String] = []
    for language in preferredLanguages {
      if let folder = Self.folder(for: language, in: bundle) {
        languages.append(folder)
        break
      }
    }
    if let development = bundle.object(forInfoDictionaryKey: "CFBundleDevelopmentRegion")
      as? String, let folder = Self.folder(for: development, in: bundle)
    {
      languages.append(folder)
    }
    for path in languages {
      guard let localization = Bundle(path: path) else { continue }
      let found = localization.localizedString(forKey: key, value: missing, table: table)
      if found != missing {
        return found
      }
    }
    return value
  }

  /// The path of `bundle`'s `.lproj` folder for `language`, trying the exact name, the name
  /// with underscores, then the language code alone.
  private static func folder(for language: String, in bundle: Bundle) -> String? {
    let underscored = language.replacingOccurrences(of: "-", with: "_")
    let code = String(underscored.prefix { $0 != "_" })
    var candidates: [String] = []
    for candidate in [language, underscored, code] where !candidate.isEmpty {
      if !candidates.contains(candidate) { candidates.append(candidate) }
    }
    for candidate in candidates {
      if let path = bundle.path(forResource: candidate, ofType: "lproj") {
        return path
      }
    }
    return nil
  }
}
