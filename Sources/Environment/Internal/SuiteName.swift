/// The rules a user-defaults suite's name follows on every platform, so that the same name
/// works, or is refused, everywhere, and no suite's file lands outside the defaults folder.
enum SuiteName {
  /// The longest name, in UTF-8 bytes, whose file name (`<name>.plist`) fits the 255 bytes a
  /// file name may have.
  static let maximumLength = 255 - ".plist".utf8.count

  /// Why `name` cannot name a suite, or `nil` when it can.
  static func problem(with name: String) -> String? {
    if name.isEmpty {
      return "is empty"
    }
    if name.contains("/") {
      return "contains \"/\", which would put the suite's file outside the user-defaults folder"
    }
    if name.utf8.contains(0) {
      return "contains a NUL character, which no file name can hold"
    }
    if name.utf8.count > maximumLength {
      return "is \(name.utf8.count) bytes long, and at most \(maximumLength) fit in a file name"
    }
    if name == "NSGlobalDomain" {
      return "is the global domain, which UserDefaults reserves"
    }
    return nil
  }
}
