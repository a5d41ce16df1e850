extension ContextKey: CustomStringConvertible {
  /// The key's value type and name, for logs and the debugger.
  ///
  /// ```swift
  /// ContextKey<Bool>("expanded").description   // "ContextKey<Bool>(\"expanded\")"
  /// ```
  public var description: String {
    "ContextKey<\(Value.self)>(\"\(name)\")"
  }
}
