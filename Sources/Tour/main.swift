// `swift run tour`: a guided, real run of every block. Each chapter lives in its own file.

let chapters: [Chapter] = [
  sequenceChapter,
  contextChapter,
  observationChapter,
  waitingChapter,
  schedulingChapter,
  environmentChapter,
]

await Tour.run(chapters)
