extension ContextKey: CustomStringConvertible {
  /// The key's value type and name, for logs and the debugger.
  ///
  /// ```swift
  /// ContextKey<Bool>("selected").description   // "ContextKey<Bool>(\"selected\")"
  /// ```
  public var description: String {
    "ContextKey<\(Value.self)>(\"\(name)\")"
  }
}

extension DefaultedContextKey: CustomStringConvertible {
  /// The key's value type, name and default, for logs and the debugger.
  ///
  /// ```swift
  /// DefaultedContextKey<Bool>("expanded", default: false).description
  /// // "DefaultedContextKey<Bool>(\"expanded\", default: false)"
  /// ```
  public var description: String {
    "DefaultedContextKey<\(Value.self)>(\"\(name)\", default: \(defaultValue))"
  }
}
