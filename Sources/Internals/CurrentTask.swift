/// The current task's hash, which tells it from every other task alive now (it hashes the
/// task's address); `nil` outside a task. A wait that its own task would have to end (a promise
/// awaited by its own operation, a limiter awaited by its own action) is told apart by it.
package func currentTaskNumber() -> Int? {
  withUnsafeCurrentTask { $0?.hashValue }
}
