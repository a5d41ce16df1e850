import TinySequence

/// TinySequence: seedless reduce, sums, argmax/argmin by key, contains-all/any.
let sequenceChapter = Chapter(
  title: "TinySequence — the sequence helpers the standard library still lacks",
  problem: """
    A week of orders from a small shop. The standard library spells map, filter and seeded
    reduce; these are the questions it leaves to hand-written loops.
    """
) {
  struct Order {
    let customer: String
    let total: Double
    let items: [String]
  }
  let orders = [
    Order(customer: "Ada", total: 42.50, items: ["tea", "scones"]),
    Order(customer: "Grace", total: 18.00, items: ["coffee"]),
    Order(customer: "Linus", total: 97.25, items: ["coffee", "cake", "tea"]),
    Order(customer: "Barbara", total: 7.75, items: ["tea"]),
    Order(customer: "Ada", total: 61.00, items: ["cake", "coffee"]),
  ]

  show("orders.sum(of: \\.total)", orders.sum(of: \.total))
  show("orders.sum(of: \\.items.count)", orders.sum(of: \.items.count))
  show("[Int.max, 1, -1].sum()", "\([Int.max, 1, -1].sum()) (exact: only the total must fit)")
  let biggest = orders.max(of: \.total)
  show("orders.max(of: \\.total)?.customer", biggest?.customer ?? "none")
  let smallest = orders.min(of: \.total)
  show("orders.min(of: \\.total)?.customer", smallest?.customer ?? "none")
  let average = orders.sum(of: \.total) / Double(orders.count)
  let typical = orders.min(of: { abs($0.total - average) })
  show(
    "orders.min(of: { abs($0.total - average) })",
    typical.map { "\($0.customer), \($0.total) (the average is \(average))" } ?? "none")

  let everything = orders.map { Set($0.items) }.reduce { $0.union($1) } ?? []
  show("orders.map { Set($0.items) }.reduce { $0.union($1) }", everything.sorted())
  show("[Order]().map(\\.total).reduce(+)", String(describing: [Order]().map(\.total).reduce(+)))

  let tea = orders.filter { $0.items.contains(allOf: ["tea", "cake"]) }.map(\.customer)
  show("orders.filter { $0.items.contains(allOf: [\"tea\", \"cake\"]) }", tea)
  let caffeine = orders.filter { $0.items.contains(anyOf: ["coffee", "tea"]) }.count
  show("orders.filter { $0.items.contains(anyOf: [\"coffee\", \"tea\"]) }.count", caffeine)

  print()
  say("They consume a sequence once, so they end lazy chains without building arrays:")
  let adaSpent = orders.lazy.filter { $0.customer == "Ada" }.sum(of: \.total)
  show("orders.lazy.filter { $0.customer == \"Ada\" }.sum(of: \\.total)", adaSpent)
  let hasSquare = (1...).lazy.map { $0 * $0 }.contains(anyOf: [529, 10_000])
  show("(1...).lazy.map { $0 * $0 }.contains(anyOf: [529, 10_000])", hasSquare)
  say("(an infinite sequence: reading stops at 23 × 23 = 529)")
}
