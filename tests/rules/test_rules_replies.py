"""Reply screening (interp/rules/replies/): each on_reply rule on replies it catches and replies it lets through, the
order the rules are tried in, and the texts said for each, by rule id."""

from __future__ import annotations

import pytest

from interp.common.extract import CodeBlock, code_blocks
from interp.prompts import Prompts
from interp.rules import Engine, Finding
from interp.rules.answer_form import Part
from interp.rules.replies import RULES, ReplyFacts, answers_read, copies_example, copies_note
from interp.rules.replies.reply_facts import reply_rule
from interp.rules.rule import Act

RULE = {rule.id: rule for rule in RULES}
WORKS = CodeBlock("python", "print('works')")
FAILS = CodeBlock("python", "raise ValueError('always')")
OTHER = CodeBlock("python", "print('other')")
RAN = {("python", WORKS.code)}
PREVIEW = "text, 9 lines, 58 bytes; whole below"
SCRIPT = "def add(a, b):\n    return a - b"  # a request's own block, as interp showed it
NOTE = "Note: 153 is 152.7 rounded up; whole minutes count only the complete ones (int() or // drop the rest)."
EXAMPLE = ("2 to the power of 10 is 1024.", "What is 2 to the power of 10?\n```python\nprint(2 ** 10)\n```")
MINUTES = ["152.71666666666667\n", "152\n"]
FARES = [Part("mean_fare"), Part("median_age")]
STUDENTS = [("df", "DataFrame", "145 rows x 33 columns: STUDENT_ID (object), GRADE (int64), Sex (int64)")]
TOTAL = ("total", "float", "3.5")
KIND = {"answer_parts": [Part("p", "p_value", number=True), Part("kind", "kind", ("normal", "not normal"))]}


def engine() -> Engine:
    return Engine(RULES, Prompts.load().rules)


@pytest.mark.parametrize(("rule", "facts", "finding"), [
    ("empty", {"reply": "  \n"}, Finding(variant="note")),
    ("empty", {"reply": ""}, Finding(variant="note")),
    ("empty", {"reply": "  \n", "nudged": True}, None),  # asked once a turn
    ("empty", {"reply": "42"}, None),
    ("unran", {"reply": "It has 9 lines.", "described": [PREVIEW], "files": [("notes.txt", "text")]},
     Finding({"files": "notes.txt"}, "note")),
    ("unran", {"reply": "Both are short.", "described": [PREVIEW, PREVIEW],
               "files": [("a.txt", "text"), ("data/b.csv", "csv")]},
     Finding({"files": "a.txt and data/b.csv"}, "note")),
    ("unran", {"reply": "code", "described": [PREVIEW], "blocks": [WORKS]}, None),  # code that opens it: it runs
    ("unran", {"reply": "It has 9 lines.", "described": [PREVIEW], "steps": 1}, None),  # after code ran: an answer
    ("unran", {"reply": "It has 9 lines.", "described": [PREVIEW], "nudged": True}, None),
    ("unran", {"reply": "It has 9 lines."}, None),  # no file previewed
    # About what the kernel holds: a column of a frame the request names, a frame, or data in general words.
    ("unran", {"reply": "'Weekly study hours'", "typed": "Which numeric column is most correlated with GRADE?",
               "held": STUDENTS}, Finding({"files": "`df`"}, "held")),
    ("unran", {"reply": "It has 145 rows.", "typed": "How many rows does df have?", "held": [*STUDENTS, TOTAL]},
     Finding({"files": "`df`"}, "held")),
    ("unran", {"reply": "The dataset is indexed by order_id.", "typed": "How is the dataset indexed?",
               "held": [*STUDENTS, TOTAL]}, Finding({"files": "`df`"}, "held")),
    ("unran", {"reply": "It has 145 rows.", "typed": "How many rows does df have?", "held": STUDENTS,
               "printed": ["Output:\n(145, 33)"]}, None),  # read off what earlier code printed
    ("unran", {"reply": "Do you mean the Pearson or the Spearman correlation?",
               "typed": "Which column is most correlated with GRADE?", "held": STUDENTS}, None),  # asks back
    ("unran", {"reply": "groupby splits a frame by keys.", "typed": "What does groupby do?", "held": STUDENTS},
     None),  # not about the data
    ("unran", {"reply": "It is 4.", "typed": "What is 2 + 2?"}, None),  # the kernel holds nothing
    ("unran", {"reply": "'Weekly study hours'", "typed": "Which numeric column is most correlated with GRADE?",
               "held": STUDENTS, "blocks": [WORKS]}, None),  # code: it runs
    ("unformed", {"reply": "The mean fare is 32.2 and @median_age[28].", "steps": 1, "answer_parts": FARES,
                  "outputs": ["\n"]},
     Finding({"forms": "@mean_fare[...] @median_age[...]", "missing": "@mean_fare[...]", "parts": "mean_fare"},
             "note")),  # the code printed nothing: asked for code that prints the parts
    ("unformed", {"reply": "About 32.", "steps": 2, "answer_parts": FARES},
     Finding({"forms": "@mean_fare[...] @median_age[...]", "missing": "@mean_fare[...], @median_age[...]",
              "parts": "mean_fare, median_age"}, "note")),
    ("unformed", {"reply": "About 32.", "steps": 1, "answer_parts": FARES, "outputs": ["32.2\n"]},
     None),  # the output shows something: form_opening asks for the answer in the form
    ("unformed", {"reply": "@mean_fare[32.20]", "steps": 1, "answer_parts": [Part("mean_fare")]}, None),  # every part
    ("unformed", {"reply": "The mean fare is 32.2.", "steps": 1}, None),  # the request asks for no form
    ("unformed", {"reply": "The mean fare is 32.2.", "answer_parts": [Part("mean_fare")]}, None),  # no code ran yet
    ("unformed", {"reply": "The mean fare is 32.2.", "steps": 1, "answer_parts": [Part("mean_fare")], "formed": True},
     None),  # asked once
    ("unformed", {"reply": "code", "steps": 1, "answer_parts": [Part("mean_fare")], "blocks": [WORKS]}, None),
    ("form_opening", {"reply": "The mean fare is 32.2.", "steps": 1, "answer_parts": FARES,
                      "outputs": ["32.2\n", "@median_age[28]\n"]},
     Finding({"forms": "@mean_fare[...] @median_age[...]", "parts": "mean_fare", "opening": "@mean_fare["}, "note")),
    ("form_opening", {"reply": "The mean fare is 32.2.", "steps": 2, "answer_parts": FARES, "formed": True},
     Finding({"forms": "@mean_fare[...] @median_age[...]", "parts": "mean_fare, median_age",
              "opening": "@mean_fare["}, "note")),  # after code was asked for, still in prose
    ("form_opening", {"reply": "The mean fare is 32.20.", "steps": 1, "answer_parts": [Part("mean_fare")],
                      "outputs": ["@mean_fare[32.20]\n"]}, None),  # the output gives it in form
    ("form_opening", {"reply": "The fare is 32.2.", "steps": 2, "answer_parts": FARES, "outputs": ["32.2\n"],
                      "opened": True}, None),  # begun in the form once: the turn ends as it is
    ("form_opening", {"reply": "@mean_fare[32.2] @median_age[28]", "steps": 2, "answer_parts": FARES,
                      "outputs": ["32.2\n"]}, None),  # every part given
    ("form_opening", {"reply": "code", "steps": 2, "answer_parts": FARES, "outputs": ["32.2\n"], "blocks": [OTHER]},
     None),
    ("form_opening", {"reply": "The fare is 32.2.", "steps": 2, "outputs": ["32.2\n"]}, None),  # no form asked for
    ("form_opening", {"reply": "The mean fare is 32.2.", "answer_parts": FARES}, None),  # no code ran yet
    ("unfilled", {"reply": "It is not\nnormal.", "steps": 1, "outputs": ["@p[0.0012] @kind[0.0012]\n"], **KIND},
     Finding({"forms": "@p[...] @kind[...]", "name": "kind", "given": "@kind[0.0012]", "field": "0.0012",
              "allowed": '"normal" or "not normal"', "said": "It is not normal.", "unmet": "@kind[0.0012]"},
             "option_said")),  # what the answer said in words comes with it
    ("unfilled", {"reply": "@p[0.0012] @kind[0.0012] as said", "steps": 1, **KIND},
     Finding({"forms": "@p[...] @kind[...]", "name": "kind", "given": "@kind[0.0012]", "field": "0.0012",
              "allowed": '"normal" or "not normal"', "said": "as said", "unmet": "@kind[0.0012]"}, "option")),
    ("unfilled", {"reply": "Done.", "steps": 1, "outputs": ["@p[{p_value}] @kind[normal]\n"], **KIND},
     Finding({"forms": "@p[...] @kind[...]", "name": "p", "given": "@p[{p_value}]", "field": "p_value",
              "allowed": "", "said": "Done.", "unmet": "@p[{p_value}]"}, "braces")),
    ("unfilled", {"reply": "@p[nan] @kind[normal]", "steps": 1, **KIND},
     Finding({"forms": "@p[...] @kind[...]", "name": "p", "given": "@p[nan]", "field": "nan", "allowed": "",
              "said": "", "unmet": "@p[nan]"}, "number")),
    ("unfilled", {"reply": "@p[0.0012] @kind[not normal]", "steps": 1, "outputs": ["@kind[0.0012]\n"], **KIND},
     None),  # the reply's values are the last ones given
    ("unfilled", {"reply": "@p[0.0012] @kind[normal]", **KIND}, None),  # no code ran: unran's to say
    ("unfilled", {"reply": "code", "steps": 1, "blocks": [WORKS], "outputs": ["@kind[1]\n"], **KIND}, None),
    ("unfilled", {"reply": "Done.", "steps": 1, "outputs": ["@kind[1]\n"], "answer_parts": [Part("kind")]}, None),
    ("restated", {"reply": "print('HELLO WORLD')", "blocks": code_blocks("print('HELLO WORLD')"),
                  "outputs": ["HELLO WORLD\n"]}, Finding()),
    ("restated", {"reply": "print('Hello world')", "blocks": code_blocks("print('Hello world')"),
                  "outputs": ["HELLO WORLD\n"]}, None),  # text no run printed: code
    ("restated", {"reply": "...", "blocks": code_blocks("```python\nprint('HELLO WORLD')\n```"),
                  "outputs": ["HELLO WORLD\n"]}, None),  # fenced: the model meant it to run
    ("restated", {"reply": "print('HELLO WORLD')", "blocks": code_blocks("print('HELLO WORLD')")}, None),  # no run
    ("restated", {"reply": "print('HELLO WORLD')", "blocks": code_blocks("print('HELLO WORLD')"),
                  "outputs": ["HELLO WORLD\n"], "status": "failed"}, None),
    ("failed", {"reply": "same", "blocks": [FAILS], "status": "failed", "failing": FAILS.code},
     Finding({"repeats": "failed"})),
    ("failed", {"reply": "again", "blocks": [WORKS], "succeeded": RAN, "drawing": True},
     Finding({"repeats": "ran"})),  # a new version asked for, and the reply is one that ran
    ("failed", {"reply": "same", "blocks": [FAILS], "status": "failed", "failing": FAILS.code, "redraws": False},
     None),  # the draws are spent: it runs, and the stuck rule bounds it
    ("failed", {"reply": "first", "blocks": [FAILS]}, None),  # no failure yet: nothing to compare with
    ("failed", {"reply": "changed", "blocks": [OTHER], "status": "failed", "failing": FAILS.code}, None),
    ("failed", {"reply": "with more", "blocks": [FAILS, OTHER], "status": "failed", "failing": FAILS.code}, None),
    ("failed", {"reply": "again", "blocks": [WORKS], "succeeded": RAN}, None),  # no version being drawn
    ("copied", {"reply": f"notes.txt: {PREVIEW}", "described": [PREVIEW]}, Finding({"of": "preview"})),
    ("copied", {"reply": f"{PREVIEW}\n```python\n{SCRIPT}\n```", "described": [PREVIEW],
                "blocks": [CodeBlock("python", SCRIPT)], "given": {SCRIPT}}, Finding({"of": "preview"})),
    ("copied", {"reply": "153 is 152.7 rounded up; whole minutes count only the complete ones (int() or // drop the "
                         "rest).", "notes": [NOTE]}, Finding({"of": "note"})),
    ("copied", {"reply": f"{PREVIEW}\n```python\n{SCRIPT.replace('-', '+')}\n```", "described": [PREVIEW],
                "blocks": [CodeBlock("python", SCRIPT.replace("-", "+"))], "given": {SCRIPT}},
     None),  # the pasted preview's block, changed: the model's code
    ("copied", {"reply": "152 whole minutes passed.", "notes": [NOTE]}, None),
    ("copied", {"reply": "The file has 9 lines.", "described": [PREVIEW]}, None),  # its own words about the file
    ("copied", {"reply": f"notes.txt: {PREVIEW}", "described": [PREVIEW], "redraws": False}, None),
    ("doubted", {"reply": "same", "blocks": [WORKS], "succeeded": RAN, "doubted": True}, Finding()),
    ("doubted", {"reply": "same", "blocks": [WORKS], "succeeded": RAN}, None),  # no note doubted it
    ("doubted", {"reply": "new", "blocks": [OTHER], "succeeded": RAN, "doubted": True}, None),  # new code runs
    ("doubted", {"reply": "same", "blocks": [WORKS], "succeeded": RAN, "doubted": True, "status": "failed"}, None),
    ("doubted", {"reply": "same", "blocks": [WORKS], "succeeded": RAN, "doubted": True, "redraws": False}, None),
    ("example", {"reply": "2 to the power of 10 is 5.", "examples_read": [EXAMPLE], "shown": "What is 2 + 3?",
                 "outputs": ["5\n"]}, Finding({"words": "2 to the power"})),
    ("example", {"reply": "2 + 3 is 5.", "examples_read": [EXAMPLE], "shown": "What is 2 + 3?", "outputs": ["5\n"]},
     None),
    ("example", {"reply": "2 to the power of 10 is 1024.", "examples_read": [EXAMPLE],
                 "shown": "What is 2 to the power of 10?"}, None),  # the conversation's own words
    ("example", {"reply": "2 to the power of 10 is 5.\n```python\nprint(5)\n```", "examples_read": [EXAMPLE],
                 "blocks": [CodeBlock("python", "print(5)")]}, None),  # a reply with code: its code is screened
    ("example", {"reply": "2 to the power of 10 is 5.", "examples_read": [EXAMPLE], "redraws": False}, None),
])
def test_each_rule_on_replies_it_catches_and_replies_it_lets_through(rule: str, facts: dict,
                                                                      finding: Finding | None) -> None:
    assert RULE[rule].detect(ReplyFacts(**facts)) == finding


@pytest.mark.parametrize(("facts", "first"), [
    ({"reply": " ", "described": [PREVIEW]}, "empty"),  # an empty reply before one guessed from a preview
    ({"reply": "print('HELLO WORLD')", "blocks": code_blocks("print('HELLO WORLD')"), "outputs": ["HELLO WORLD\n"],
      "succeeded": {("python", "print('HELLO WORLD')")}, "doubted": True}, "restated"),  # the answer, not a repeat
    ({"reply": f"{PREVIEW}\n```python\n{SCRIPT}\n```", "described": [PREVIEW], "blocks": [CodeBlock("python", SCRIPT)],
      "given": {SCRIPT}, "succeeded": {("python", SCRIPT)}, "doubted": True}, "copied"),  # its code is the preview's
    ({"reply": "2 to the power of 10 is 152.71666666666667.", "examples_read": [EXAMPLE], "outputs": MINUTES},
     "example"),
    ({"reply": "About 32.", "steps": 1, "answer_parts": FARES, "outputs": ["\n"]}, "unformed"),  # printed nothing
    ({"reply": "About 32.", "steps": 1, "answer_parts": FARES, "outputs": ["32.2\n"]}, "form_opening"),
    ({"reply": "Fine.", "steps": 1}, None),
])
def test_the_first_rule_that_fires_is_the_one_acted_on(facts: dict, first: str | None) -> None:
    fired = engine().run("on_reply", ReplyFacts(**facts), first=True)
    assert [f.rule for f in fired] == ([first] if first else [])


@pytest.mark.parametrize(("rule", "finding", "text"), [
    ("empty", Finding(variant="note"),
     "Your reply was empty. Reply with one ```python code block that does what I asked, or with the answer."),
    ("unran", Finding({"files": "notes.txt"}, "note"),
     "Nothing has run yet, so that answer is a guess. Reply with ONE ```python code block that opens notes.txt, "
     "computes the answer from what it reads, and prints it."),
    ("unran", Finding({"files": "notes.txt"}, "notice"),
     "The model answered about notes.txt with no code behind it; asking it for code that computes the answer."),
    ("unran", Finding({"files": "`df`"}, "held"),
     "Answer this with ONE ```python code block that computes the answer from `df`, as the session holds them, and "
     "prints it: compute every value the answer depends on. An answer without code would be a guess."),
    ("unran", Finding({"files": "notes.txt"}, "unpreviewed"),
     "The model answered from the preview of notes.txt before any code ran; asking again without the preview, for "
     "code that reads the file."),
    ("unformed", Finding({"forms": "@a[...] @b[...]", "missing": "@a[...]", "parts": "a"}, "note"),
     "The request asks for the answer as @a[...] @b[...], and the code above printed nothing, so @a[...] is not shown "
     "yet. Reply with ONE ```python code block that prints every part as @name[value]."),
    ("unformed", Finding({"forms": "@a[...] @b[...]", "missing": "@a[...]", "parts": "a"}, "notice"),
     "The answer leaves out a, and the code printed nothing; asking for code that prints them."),
    ("form_opening", Finding({"forms": "@a[...] @b[...]", "parts": "a", "opening": "@a["}, "note"),
     "The request asks for the answer as @a[...] @b[...]. Write your final answer now, every part as @name[value], "
     "each value taken from the output above."),
    ("form_opening", Finding({"forms": "@a[...] @b[...]", "parts": "a", "opening": "@a["}, "notice"),
     "The answer leaves out a in the form asked for; asking for it begun in that form."),
    ("unfilled", Finding({"name": "kind", "given": "@kind[0.1]", "allowed": '"a" or "b"'}, "option"),
     'The request allows only "a" or "b" for @kind[...], and the answer gives @kind[0.1]. Decide which of them the '
     "output above supports, by the request's own criteria, and write your final answer again as text, every part as "
     "@name[value], that part spelled exactly as the request spells it. Only if the output above does not show what "
     "decides it, reply instead with ONE ```python code block that prints it."),
    ("unfilled", Finding({"name": "k", "given": "@k[0.1]", "allowed": '"up" or "down"', "said": "It went up."},
                         "option_said"),
     'The request allows only "up" or "down" for @k[...], and the answer gives @k[0.1]. Your answer says: "It went '
     'up." Write your final answer again as text, every part as @name[value], with @k[...] the one of "up" or "down" '
     "that says what your answer says."),
    ("unfilled", Finding({"forms": "@n[...]", "name": "n", "given": "@n[{n}]", "field": "n"}, "braces"),
     "The request asks for the answer as @n[...], and the output gives @n[{n}]: the name in braces, not its value. "
     'A string without the f prefix prints its braces as written; print(f"@n[{n}]") puts the value in. Reply with '
     "ONE ```python code block that prints every part that way."),
    ("unfilled", Finding({"unmet": "@n[nan]"}, "notice"),
     "The answer gives @n[nan], which does not answer the request's form; asking once more."),
    ("failed", Finding(), "The model sent the code that failed again, unchanged; asking it once more."),
    ("doubted", Finding(), "The model sent the code that just ran again, unchanged, after interp's note on its "
                           "output; asking it once more."),
    ("copied", Finding({"of": "note"}), "The model's answer repeated interp's own words (a note, a file's preview) "
                                        "instead of answering; asking it once more."),
    ("example", Finding({"words": "w"}), "The model's answer copied the example answer interp's prompt shows it "
                                         "instead of answering; asking it once more."),
])
def test_the_texts_by_rule_id(rule: str, finding: Finding, text: str) -> None:
    assert engine().render(rule, finding) == text


def _never(facts: ReplyFacts) -> Finding | None:
    """Never fires."""
    return None


def test_every_reply_rule_says_what_the_turn_does() -> None:
    """The policy reads a reply rule's Act, never its id: each has one."""
    assert all(rule.act is not None for rule in RULES)
    assert reply_rule("guess", _never, Act("nudge")).act == Act("nudge")


@pytest.mark.parametrize(("reply", "copied"), [
    ("The request asks for whole minutes, but the output shows 152.71666666666667. Whole units count only the "
     "complete ones (int() or // drop the rest).", True),
    ("the request asks for whole minutes,  but the output shows 152.71666666666667.\nWhole units count only the "
     "complete ones.", True),
    ("152 whole minutes passed between the first and the last line.", False),
    ("The output shows 152.71666666666667 minutes; whole minutes: 152.", False),
    ("", False),
])
def test_a_copied_note_is_told_from_an_answer_that_quotes_some_of_it(reply: str, copied: bool) -> None:
    note = "Note: the request asks for whole minutes, but the output shows 152.71666666666667. Whole units count " \
           "only the complete ones (int() or // drop the rest)."
    assert copies_note(reply, [note]) is copied
    assert not copies_note("Anything.", [])


REQUEST = "How many data rows are in sales.csv, not counting the header? Print the number."


@pytest.mark.parametrize(("reply", "shown", "copied"), [
    ("sales.csv has two lines that start with '#': \"# Plan\" and \"# Budget\".", [REQUEST, "6\n"],
     "has two lines that"),
    ("The sum of the numbers from 1 to 50 is 108.", ["Print the sum of nums."], "of the numbers from"),
    ("notes.md has 11 prime numbers below 50.", ["Print the primes below 50."], "notes.md"),
    ("sales.csv has 6 data rows.", [REQUEST, "6\n"], None),
    # The same words, where the conversation holds them, are the model's own answer.
    ("notes.md has two lines that start with '#'.", ["Print the lines of notes.md that start with '#'.",
                                                     "# Plan\n# Todo\n"], None),
    ("The sum of the numbers from 1 to 50 is 1275.", ["Print the sum of the numbers from 1 to 50."], None),
    ("notes.md.bak has 3 lines.", ["Count notes.md.bak's lines."], None),
    ("", [], None),
])
def test_an_answer_copying_a_few_shot_answer_is_told_from_one_in_the_same_words_as_the_conversation(
        reply: str, shown: list[str], copied: str | None) -> None:
    answers = answers_read(Prompts.load(profile="small").prefix())
    assert [answer for answer, _ in answers] == ["4 of the numbers from 1 to 50 have digits that add up to 10.",
                                                 "notes.md has two lines that start with '#': \"# Plan\" and "
                                                 "\"# Budget\"."]
    assert copies_example(reply, answers, shown) == copied
    assert copies_example("Anything at all here.", [], []) is None
