#!/usr/bin/env python3
"""Helpers of .ci/build-docs.

    docc-catalog.py <Module> <guide.md> <reference.md> <Performance.md> <catalog>
                                                          makes a module's catalog
    docc-catalog.py --check-archive <archive>             finds dead links

The catalog holds a landing page (the module's title, the guide's first paragraph as its
abstract, and the guide, its reference and the performance page as its topics), and those three
pages as articles: the guide under its own name (`Observation`), its reference as
`<Block>Reference` (`Docs/Reference/Observation.md` becomes `ObservationReference`), and
`Performance`. The pages link to each other with relative Markdown links, which GitHub follows;
in the catalog they become DocC links, which `docc` resolves and checks: a link to a page of the
catalog (and its anchors, on the same page too) turns into `<doc:Article#…>`, a link to a heading
that does not exist stops here, and a link to a page that is not in the catalog (another block's
guide) becomes plain text.
"""

import json
import os
import re
import sys

LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*```")


def github_slug(text):
    text = re.sub(r"`", "", text).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def headings(path):
    found, in_fence = {}, False
    for line in open(path, encoding="utf-8"):
        if FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence:
            match = re.match(r"^#{1,6}\s+(.*?)\s*$", line)
            if match:
                found.setdefault(github_slug(match.group(1)), match.group(1))
    return found


def article_name(path):
    """The catalog's name of a page: `Observation`, `ObservationReference`, `Performance`."""
    stem = os.path.splitext(os.path.basename(path))[0]
    parent = os.path.basename(os.path.dirname(os.path.normpath(path)))
    return stem + "Reference" if parent == "Reference" else stem


def rewrite(text, source, names_of, anchors_of):
    """Turns relative Markdown links into DocC links or plain text."""
    out, in_fence = [], False
    for line in text.split("\n"):
        if FENCE.match(line):
            in_fence = not in_fence
        if not in_fence:
            def replace(match):
                label, target = match.groups()
                if re.match(r"^[a-z]+:", target):
                    return match.group(0)
                name, _, anchor = target.partition("#")
                resolved = os.path.normpath(os.path.join(os.path.dirname(source), name)) \
                    if name else os.path.normpath(source)
                article = names_of.get(resolved)
                if article is None:
                    return label
                fragment = ""
                if anchor:
                    heading = anchors_of[article].get(anchor)
                    if heading is None:
                        sys.exit(f"docc-catalog: {source}: {target}: no such heading in {article}")
                    fragment = "#" + re.sub(r"[^\w\- ]", "", heading.replace("`", "")).replace(
                        " ", "-")
                return f"[{label}](<doc:{article}{fragment}>)"
            line = LINK.sub(replace, line)
        out.append(line)
    return "\n".join(out)


def make_catalog(module, guide, reference, performance, catalog):
    text = open(guide, encoding="utf-8").read()
    title = re.search(r"^#\s+(.*)$", text, re.M).group(1).strip()
    if title.strip("`") == module:
        sys.exit(f"docc-catalog: {guide}'s title is the module's name ({module}); DocC would "
                 "show two pages with one title: give the guide a title of its own")
    paragraphs = re.split(r"\n\s*\n", text[text.index("\n") + 1:].strip())
    abstract = " ".join(paragraphs[0].split())
    pages = [guide, reference, performance]
    names_of = {os.path.normpath(p): article_name(p) for p in pages}
    anchors_of = {article_name(p): headings(p) for p in pages}
    os.makedirs(catalog, exist_ok=True)
    for path in pages:
        body = rewrite(open(path, encoding="utf-8").read(), path, names_of, anchors_of)
        open(os.path.join(catalog, f"{article_name(path)}.md"), "w", encoding="utf-8").write(body)
    topics = "".join(f"- <doc:{article_name(p)}>\n" for p in pages)
    landing = f"# ``{module}``\n\n{abstract}\n\n## Topics\n\n### Guides\n\n{topics}"
    open(os.path.join(catalog, f"{module}.md"), "w", encoding="utf-8").write(landing)


def check_archive(archive):
    dead = []
    for folder, _, files in os.walk(os.path.join(archive, "data")):
        for name in files:
            if not name.endswith(".json"):
                continue
            path = os.path.join(folder, name)
            page = json.load(open(path, encoding="utf-8"))
            references = page.get("references", {})

            def walk(node):
                if isinstance(node, dict):
                    if node.get("type") == "reference":
                        target = node.get("identifier", "")
                        resolved = target in references or re.match(r"^https?://", target)
                        if not resolved:
                            dead.append(f"{os.path.relpath(path, archive)}: {target}")
                    for value in node.values():
                        walk(value)
                elif isinstance(node, list):
                    for value in node:
                        walk(value)

            walk({k: v for k, v in page.items() if k != "references"})
    for link in dead:
        print(f"dead link in the archive: {link}")
    if dead:
        sys.exit(1)


if __name__ == "__main__":
    if sys.argv[1] == "--check-archive":
        check_archive(sys.argv[2])
    else:
        make_catalog(*sys.argv[1:6])
