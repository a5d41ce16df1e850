/// The error ``KeyValueStore/flush()`` throws when the store's values cannot reach permanent
/// storage.
public enum KeyValueStoreError: Error, Equatable, Sendable {
  /// The store could not write its file: the file (or, on Apple platforms, the suite) and what
  /// the system said.
  ///
  /// The values stay readable in the process. The store tries again with the next change, the
  /// next ``KeyValueStore/flush()``, and when the process exits normally.
  case notWritten(path: String, reason: String)
}
