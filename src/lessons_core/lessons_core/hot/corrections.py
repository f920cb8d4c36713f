"""Whether a user's message corrects the agent (standard library only, no ``re``).

One judgement serves two places: the hook, which on a correcting prompt asks the model to write a
``#lesson`` block if the correction is worth keeping, and the scanner's correction detector
(:mod:`lessons_core.scan.detectors.corrections`), which turns such a message into a candidate.
Both must agree, so the judgement lives here, on the hot side, and the cold detector imports it.

A correction says the agent's last action or belief was wrong and, usually, what to do instead:
"no, use pnpm", "don't push to main", "that's not the branch", "put it in AGENTS.md, not a
skill", "it's better not to store PII there", "gh should work, ask for elevated permissions".
A new task, a question, an approval, a pasted plan or log, or a report that something still
does not work is not one: a report says *that* something is wrong, not what rule was broken,
and teaches nothing another session could use. So the message needs a correcting cue and must
not read as a report, a doubt or a decision for this moment only ("let's see", "for now").
Words are read as people type them: an apostrophe left out (``dont``), an instruction at the
head of a later clause ("ugh, the prints again. use the logger"), two things set apart by a
bare "not" ("5433 not 5432"); an open question ("what could we use instead?") asks.

Only the head of a message is judged (its first lines, after the markup an IDE or the agent's
harness puts in front): a correction leads with its point, while a long paste that happens to
hold "don't" deep inside is not one. The work is a few ``str`` methods on at most
``HEAD_CHARS`` characters; the hook pays microseconds for it on every prompt.
"""

import itertools

#: How much of a message is judged, and kept as the correction's words.
HEAD_CHARS = 400
HEAD_LINES = 3
#: An IDE extension may put its context first and the user's words after a heading of this
#: form ("## My request for <the agent>:").
_REQUEST_HEADING = "## my request for "
#: A message starting so is the harness's or a paste, not something the user typed at the agent.
_NOT_TYPED = (
    "caveat:",
    "<command-",
    "<local-command",
    "[request interrupted",
    "this session is being continued",
    "implement the following plan",
    "```",
    "# ",
    "## ",
    "{",
    "[",
)
#: Words a message may open with before its point ("hmm, no …", "wait, that's wrong").
_FILLERS = frozenset(
    (
        "hmm", "hmmm", "hm", "um", "uh", "oh", "ah", "well", "wait", "ok", "okay", "so", "and",
        "but", "also", "sorry", "actually", "hey", "ugh", "again", "still", "nah", "sec", "a",
    )
)  # fmt: skip
#: Opening words that correct on their own ("no" is judged apart, see :func:`_opens`).
_OPENERS = frozenset(
    (
        "don't", "never", "stop", "wrong", "instead", "always", "avoid", "prefer", "use",
        "remember", "reminder",
    )
)  # fmt: skip
#: Phrases that correct wherever they stand in the head (padded with spaces when matched).
_PHRASES = (
    "that's wrong",
    "that is wrong",
    "this is wrong",
    "that's not",
    "that is not",
    "this is not what",
    "that's incorrect",
    "not what i",
    "don't use",
    "never use",
    "never run",
    "should use",
    "should be using",
    "should have used",
    "should not",
    "shouldn't",
    "better not",
    "better to use",
    "i told you",
    "as i said",
    "i already said",
    "i thought we",
    "i thought the",
    "you forgot",
    "you missed",
    "you didn't",
    "you used",
    "you broke",
    "should work",
    "check again",
    "look again",
    "the wrong",
    "not like that",
    "why did you",
    "why are you",
    "why would you",
    "i asked you",
    "i asked for",
    "i said",
    "you should have",
    "you were supposed",
    "you need to",
    "you have to",
    "you must",
    "make sure you",
    "make sure to",
    "just use",
    "please use",
    "we use",
    "we don't use",
    "we never",
    "we always",
    "it's called",
    "its called",
    "is called",
    "undo that",
    "undo this",
    "revert that",
    "revert this",
    "put it back",
    "why not use",
    "why not just use",
    "you can't",
    "you cannot",
    "it's not",
    "its not",
    "it is not",
    "this isn't",
    "that isn't",
    "isn't right",
    "not right",
    "not correct",
    "incorrect",
    "you're wrong",
    "you are wrong",
    "didn't ask",
    "remember to",
    "remember that",
    "only ever",
    # a rule for the sessions to come
    "next time",
    "from now on",
    "going forward",
    "in the future",
    "every time",
    "i prefer",
    "i'd prefer",
    "i'd rather",
    "i would rather",
    "i don't want you",
    "i don't need you",
    "that's why we",
    "can you not",
    "please always",
    "please never",
    "no need to",
    "no need for",
    # how the user wants the agent to work
    "ask me before",
    "ask me first",
    "check with me",
    "before you",
    "stick to",
    "stick with",
    "keep to",
    "the convention",
    # a fact of the project the agent went against
    "we moved to",
    "we've moved to",
    "we switched to",
    "we've switched to",
    "we migrated to",
    "we're on",
    "we are on",
    "has to be",
    "have to be",
    "needs to be",
    "must be",
    "should follow",
    "should look like",
    "should be like",
    "should always",
    "should never",
    # what the agent did, said back to it: "you ran the seed against the shared database",
    # "you pushed three lint failures", "the flag you just added"
    "you ran", "you pushed", "you added", "you stored", "you removed", "you deleted",
    "you wrote", "you changed", "you left", "you created", "you moved", "you renamed",
    "you committed", "you installed", "you just",
    # a habit of the agent's, said back to it: "you keep forgetting the changelog"
    "you keep", "you always",
    # said before: "i've said this before — no emojis in commit messages"
    "said this before", "told you before", "said that before",
    # a thing the agent may not touch or do on its own: "the prod db is off limits", "anything
    # that writes goes through me"
    "off limits", "goes through me", "go through me",
    # a fact of the project the agent went against: "project.pbxproj is generated", "the esp32
    # build is pinned to idf 5.1", "the other locales get overwritten"
    "is generated", "are generated", "pinned to", "get overwritten", "gets overwritten",
    # said before, in other words: "we went over this last week", "for the third time"
    "went over this", "as discussed", "third time", "not again",
    # a question about what the agent did, as "why are you …" is one
    "how come you", "how come you're", "did you forget", "who told you",
    # a rule for every such change: "whenever you change the .proto files, run buf generate"
    "whenever you change", "whenever you add", "whenever you touch", "whenever you edit",
    "whenever you update",
    # how the project is everywhere, and where its things go: "the kernels use float64
    # throughout", "cluster tweaks go in overlays/", "it must never be re-generated"
    "throughout", "everywhere", "goes in", "go in", "belongs in", "belong in", "lives in",
    "live in", "lives under", "live under", "goes through the", "go through the",
    "must never", "must not", "keep it like this", "keep it that way",
)  # fmt: skip
#: Short spellings read as the word they stand for.
_SPELLED = {
    "pls": "please", "plz": "please", "plase": "please", "u": "you",
    # the apostrophe left out, as people type
    "dont": "don't", "cant": "can't", "isnt": "isn't", "didnt": "didn't", "doesnt": "doesn't",
    "shouldnt": "shouldn't", "wont": "won't", "arent": "aren't", "wasnt": "wasn't",
    "thats": "that's", "youre": "you're", "whats": "what's",
}  # fmt: skip
#: Words before a "don't" that make it a description, not an instruction.
_SUBJECTS = frozenset(("i", "we", "they", "it", "he", "she", "that", "this", "which", "who"))
#: Verbs that make an "… it yourself" a correction of the agent asking the user to do its work.
_SELF_VERBS = frozenset(("test", "check", "verify", "run", "try", "look", "confirm", "debug"))
#: A report, a doubt ("should we …?"), a one-time decision: not a rule another session could use.
_ONE_OFF = (
    # a suggestion put to the agent
    "what do you think",
    "wdyt",
    "doesn't work",
    "does not work",
    "didn't work",
    "not working",
    "still not",
    "still seeing",
    "still getting",
    "still doesn't",
    "still broken",
    "not showing",
    "are you sure",
    "are you confident",
    "is that right",
    "is that correct",
    "let's see",
    "lets see",
    "let me",
    "yet",
    "only this one",
    "for now",
    "for this one",
    "this time",
    "in this branch",
    "in this pr",
    "should we",
    "should that",
    "should it",
    "should this",
    "shouldn't we",
    "shouldn't the",
    "shouldn't it",
    "shouldn't this",
    "shouldn't that",
    # the user's own part, offered: "instead of me explaining, here's the log"
    "instead of me",
)
#: Words after ", not" that hedge ("not sure", "not yet") rather than set one thing against another.
_NOT_CONTRAST = frozenset(("sure", "yet", "really", "quite", "only", "just", "always", "much"))
#: Marks the "X, not Y" / "use X not Y" contrast.
_USE = frozenset(("use", "using", "run", "call", "prefer", "put", "keep", "want"))
#: When the user rejected a call, a bare instruction is the correction ("use pnpm").
_IMPERATIVES = frozenset(
    ("use", "try", "run", "call", "prefer", "avoid", "always", "only", "put", "keep", "switch")
)
#: Punctuation, read as a break between words.
_BREAK = "|"
_PUNCT = str.maketrans(dict.fromkeys('.,;:!?()[]{}"`*_<>=/\\|-…', " | "))
#: "No" opens a correction when a break or one of these follows it ("no, use …", "no don't"),
#: not as a determiner ("no teams are loading").
_AFTER_NO = frozenset(
    (
        "don't", "do", "not", "use", "that", "that's", "it", "it's", "its",
        "you", "we", "stop", "wrong", "instead", "just", "please", "actually", "i", "never",
        "no",
    )
)  # fmt: skip


def head(text):
    """The part of a message that is judged and quoted: its first lines, without leading
    markup (``<ide_opened_file>…</ide_opened_file>``, Codex's IDE context), at most
    ``HEAD_CHARS`` characters; ``""`` when the message is not typed text."""
    if not isinstance(text, str):
        return ""
    text = text[:20000]
    at = text.lower().find(_REQUEST_HEADING)
    colon = text.find(":", at, text.find("\n", at) if at >= 0 else at) if at >= 0 else -1
    if colon >= 0:
        text = text[colon + 1 :]
    text = text.lstrip()
    for _ in range(8):  # leading <tag>…</tag> blocks the IDE or the harness added
        end = text.find(">") if text.startswith("<") else -1
        name = text[1:end].split()[0] if end > 1 else ""
        close = text.find("</" + name + ">") if name else -1
        if close >= 0:  # (else nothing more to take off: the rounds left change nothing)
            text = text[close + len(name) + 3 :].lstrip()
    if text.lower().startswith(_NOT_TYPED):
        return ""
    kept: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            if kept:
                break  # the first paragraph is the point; what follows is often a paste
            continue
        kept.append(line)
        if len(kept) >= HEAD_LINES:
            break
    return " ".join(kept)[:HEAD_CHARS]


def correction(text, rejected=False, answer=False):
    """The correcting words of ``text`` (its head), or ``None`` when it corrects nothing.

    ``rejected``: the text is the user's reason for declining a call; then a bare instruction
    ("use pnpm", "run it with uv") corrects too, since the call it answers was refused.
    ``answer``: the agent's last words asked the user something; then an opening "no" or
    "don't" answers the question, and only what sets the agent right ("no, use …", "that's not
    the branch", "check again on …", "X, not Y") still corrects.
    """
    said = head(text)
    if not said:
        return None
    tokens = _tokens(said)
    words = [t for t in tokens if t != _BREAK]
    if len(words) < 2 and not (rejected and words):
        return None
    padded = " " + " ".join(words) + " "
    for phrase in _ONE_OFF:
        if " " + phrase + " " in padded:
            return None
    if _asks(words, said) or not _cued(said, tokens, words, padded, rejected, answer):
        return None
    if _new_work(tokens, words, said) and not _looks_back(words, padded, said):
        return None  # (judged last: most messages have no cue, and this costs the most)
    return said


def _cued(said, tokens, words, padded, rejected, answer):
    """Whether the message holds a correcting cue: an opening, a phrase, a "don't" said to the
    agent, a thing ruled out, a contrast, an "… it yourself"."""
    if _opens(tokens, rejected, answer) or _clause_opens(said, words, answer):
        return True
    for phrase in _PHRASES:
        if " " + phrase + " " in padded:
            return True
    if not answer and (_told_not(words) or _we_do_not(words)):
        return True
    if ("no" in words and _ruled_out(words)) or ("here" in words and _the_way_here(words)):
        return True
    if _contrast(said.lower(), words) or _why_then_told(said, words):
        return True
    if "again" in words and _did_again(said):
        return True
    return any(
        word == "yourself" and _SELF_VERBS.intersection(words[max(0, i - 4) : i])
        for i, word in enumerate(words)
    )


#: Words that open a question about what the agent did ("why are you using npm?").
_WHY = frozenset(("why", "why'd"))
#: Words that point at what the user pasted with a question ("output below", "here's the log").
_PASTED = frozenset(("below", "attached", "here's", "pasted"))
#: How many words the statement after such a question needs to say how things are done here.
_TOLD_WORDS = 3


def _why_then_told(said, words):
    """ "why are you using npm? this is a pnpm repo": a question about what the agent did,
    then a statement of how things are here, which answers it. A question alone ("why is this
    test flaky?"), one with another question or a request after it ("… any ideas?", "… can
    you investigate"), or one that points at a paste ("… output below"), asks."""
    first = next((w for w in words if w not in _FILLERS), "")
    at = said.find("? ")
    if first not in _WHY or at < 0:
        return False
    rest = said[at + 2 :].strip()
    told = _words_of(rest)
    if (told[:1] and told[0] in _REQUESTS) or not _PASTED.isdisjoint(told):
        return False
    return not rest.endswith("?") and len(rest.split()) >= _TOLD_WORDS


#: Words after a "you" that say what may or should be done, not what was ("you can run it
#: again").
_MODALS = frozenset(
    ("can", "could", "may", "might", "should", "will", "would", "need", "must", "have", "'ll")
)


def _did_again(said):
    """ "… you jumped straight in again": what the agent did, said back to it as done once
    more, a habit that came back. A question ("did you run it again?") or what may be done
    ("you can run it again") is none."""
    for clause in _clauses(said, _CLAUSE_ENDS):
        told = _words_of(clause)
        if (
            told[:1] == ["you"]
            and "again" in told
            and told[1] not in _MODALS
            and not clause.rstrip().endswith("?")
        ):
            return True
    return False


def _words_of(text):
    """The words of ``text`` (:func:`_tokens`), without the breaks between them."""
    return [t for t in _tokens(text) if t != _BREAK]


def _tokens(text):
    """The words of ``text``, lowered and spelled out, with :data:`_BREAK` for punctuation."""
    lowered = text.lower().replace("\u2019", "'").translate(_PUNCT)
    return [_SPELLED.get(token, token) for token in lowered.split()]


#: What ends a clause: a later clause may open with an instruction as the first one does
#: ("ugh, again with the prints. use the logger", "that flag is gone, use --format json").
_CLAUSE_ENDS = (". ", "! ", "? ", "; ", ", ", ": ")
#: The openers that correct at the head of a later clause too ("no" there answers or counts).
_CLAUSE_OPENERS = frozenset(("don't", "never", "stop", "avoid", "always", "use", "prefer"))


def _clause_opens(said, words, answer):
    """Whether a clause after the first opens with an instruction ("…, never force-push");
    ``words`` are the message's, which hold every clause's."""
    if _CLAUSE_OPENERS.isdisjoint(words[1:]):
        return False  # (no opener anywhere: no clause to split off and read again)
    for clause in _clauses(said, _CLAUSE_ENDS)[1:]:
        words = _words_of(clause)
        if len(words) < 2 or words[0] not in _CLAUSE_OPENERS or _describes(words):
            continue
        if not (answer and words[0] in _ANSWER_OPENERS):
            return True
    return False


def _clauses(said, ends):
    """``said`` cut after each of ``ends``, each clause keeping its closing mark (a question's
    ``?``)."""
    for end in ends:
        said = said.replace(end, end.rstrip() + "\n")
    return said.splitlines()


#: Verbs of the user's own mind or memory: "don't know", "never seen this": the user says
#: something of themselves, not of what the agent should do.
_OWN_MIND = frozenset(
    (
        "know", "think", "understand", "see", "remember", "care", "mind", "get", "seen",
        "heard", "had", "been", "knew", "thought", "understood", "tried", "used",
        # "never would have found that", "never could get it": what was, not what to do
        "would", "could",
    )
)  # fmt: skip


#: Words after an opening "always" or "never" that make it a remark, not an instruction
#: ("always fun when the flaky test passes on retry", "never nice to see a red build").
_REMARKS = frozenset(("fun", "nice", "good", "great", "funny", "lovely", "amazing", "interesting"))
#: Words after a "stop" that say when the work in hand is to pause ("stop after the tests
#: pass", "stop here for today"), not a habit to drop.
_PAUSE = frozenset(("after", "when", "once", "here", "there", "at", "before", "for", "now"))


def _describes(words):
    """ "don't know if …", "never seen this before": an opening "don't" or "never" that
    tells of the user, not the agent; "stop after the tests pass": a pause of the work in hand;
    "always fun debugging timezones": a remark (``words``: two at least, as every caller
    has)."""
    if words[0] == "stop":
        return words[1] in _PAUSE
    if words[0] in ("always", "never") and words[1] in _REMARKS:
        return True
    return words[0] in ("don't", "never") and words[1] in _OWN_MIND


#: Words after an answer's "no" that go on answering ("no, it's fine", "no, don't bother").
_ANSWER_NO = frozenset(
    (
        "it", "it's", "its", "i", "just", "please", "do", "we", "you", "actually",
        "don't", "not", "never", "stop",
    )
)  # fmt: skip


#: Opening words that, replying to the agent's question, answer it.
_ANSWER_OPENERS = frozenset(("don't", "never", "stop"))


def _opens(tokens, rejected, answer):
    """Whether the message opens with a correction: "no, …", "don't …", "stop …", "wrong …",
    "please don't …", or, for a declined call's reason, any instruction ("use pnpm")."""
    start = 0
    while start < len(tokens) and (tokens[start] in _FILLERS or tokens[start] == _BREAK):
        start += 1
    rest = [t for t in tokens[start + 1 :] if t != _BREAK]
    if not rest:  # (also when nothing but fillers was said)
        return False
    first = tokens[start]
    if first in ("no", "nope"):
        if rejected:
            return True  # ("no network calls in unit tests": the reason rules a thing out)
        after = tokens[start + 1]
        if answer:  # "no" answers the question; "no, use …" still corrects
            after = rest[0]
            return after in _AFTER_NO and after not in _ANSWER_NO
        return after == _BREAK or after in _AFTER_NO
    if answer and first in _ANSWER_OPENERS:
        return False  # "don't bother", "never mind": the question answered
    if first in _OPENERS:
        return not _describes([t for t in tokens[start:] if t != _BREAK])
    if first == "please" and rest[0] in ("don't", "stop", "never"):
        return True
    return rejected and first in _IMPERATIVES


#: Words that may stand between a subject and its "don't" ("I actually don't like …").
_ADVERBS = frozenset(("actually", "really", "just", "also", "still", "even", "usually", "often"))


def _told_not(words):
    """ "… and don't touch the lockfile", "please do not …": a "don't" said to the agent, not
    one that describes ("we don't handle it", "I actually don't like this idea", "don't know
    if it matters")."""
    for i, verb in _negations(words):
        subject = next((w for w in reversed(words[:i]) if w not in _ADVERBS), None)
        if subject not in _SUBJECTS and verb not in _OWN_MIND:
            return True
    return False


def _negations(words):
    """Each "don't" or "do not" of ``words``: where it stands, and the word after it (``""``
    at the end)."""
    for i, word in enumerate(words):
        if word == "don't":
            yield i, next(iter(words[i + 1 :]), "")
        elif word == "do" and words[i + 1 : i + 2] == ["not"]:
            yield i, next(iter(words[i + 2 :]), "")


#: What may follow a "we don't" that tells of the team, not of how it works ("we don't need
#: the cache for the demo", "we don't have a staging server"), or of the user's mind.
_NO_PRACTICE = _OWN_MIND | _ADVERBS | {
    "need", "have", "want", "like", "handle", "support", "do", "care", "mind",
}  # fmt: skip


def _we_do_not(words):
    """ "we don't commit to main directly", "we do not mock the database": how the team works,
    which the agent went against."""
    return any(
        i > 0 and words[i - 1] == "we" and verb and verb not in _NO_PRACTICE
        for i, verb in _negations(words)
    )


#: What follows a "so no" that is a courtesy or a state of mind, not a thing ruled out ("so no
#: rush", "so no idea why").
_COURTESIES = frozenset(
    ("rush", "hurry", "worries", "worry", "problem", "problems", "pressure", "idea", "clue")
)


def _ruled_out(words):
    """ "we're on python 3.9 in prod, so no match statements": a thing ruled out as what
    follows from a fact of the place."""
    return any(
        (so, no) == ("so", "no") and what not in _COURTESIES
        for so, no, what in zip(words, words[1:], words[2:], strict=False)
    )


#: The verbs of a way things are done somewhere: "commit messages here follow …", "branch
#: naming here is …", "tests here use …".
_WAY_VERBS = frozenset(
    ("is", "are", "follow", "follows", "use", "uses", "go", "goes", "live", "lives", "must",
     "should", "always", "never", "need", "needs", "run", "runs")
)  # fmt: skip
#: Words before "here" that point at the moment, not a practice ("the problem here is …").
_NOT_PRACTICES = frozenset(
    ("problem", "issue", "question", "thing", "point", "error", "bug", "what", "is", "are",
     "it", "that", "this", "i", "you", "we", "so", "and", "but", "over", "in", "out", "up",
     "come", "go", "get", "look", "from", "right", "just", "me")
)  # fmt: skip


def _the_way_here(words):
    """ "commit messages here follow conventional commits": how things are done in this place,
    told by a thing, "here", and a verb of practice."""
    return any(
        here == "here" and verb in _WAY_VERBS and thing not in _NOT_PRACTICES
        for thing, here, verb in zip(words, words[1:], words[2:], strict=False)
    )


#: Words that open a question asking something rather than setting the agent right.
_ASKING = frozenset(("what", "what's", "how", "where", "when", "which", "who"))


def _asks(words, said):
    """ "what could we use instead of polling here?", "how do we run the tests?": a question
    that asks, its words no correction ("why did you …?" is one: ``why`` is not asking)."""
    at = next((i for i, w in enumerate(words) if w not in _FILLERS), len(words))
    first = words[at] if at < len(words) else ""
    if first in _WHY:
        # ("why does the build hang?": a question alone, not of what the agent did, nor a
        # "why not use …?", which puts the other way)
        alone = said.rstrip().endswith("?") and "you" not in words
        return alone and words[at + 1 : at + 2] != ["not"]
    if first == "remember":
        # ("remember the helper we wrote yesterday? reuse it here": asks what the agent recalls)
        return _clauses(said, (". ", "! ", "? "))[0].rstrip().endswith("?")
    if first not in _ASKING or words[at + 1 : at + 2] in (["come"], ["told"], ["asked"]):
        # ("how come you're editing the generated client?", "who told you to commit?" ask
        # nothing)
        return False
    # (the question may come first, and what it asks about after it: a pasted log line)
    return said.rstrip().endswith("?") or "?" in _clauses(said, (". ", "! ", "? "))[0]


#: Words a message may open with that approve what was done before it asks for more ("looks
#: good, next: …", "cool, now add …").
_APPROVALS = frozenset(
    ("great", "cool", "nice", "perfect", "thanks", "thank", "lgtm", "good", "fine", "awesome",
     "excellent", "looks", "sounds", "alright", "yes", "yep", "sure", "done", "works")
)  # fmt: skip
#: Verbs that open a request for new work ("add a `--dry-run` flag …", "please write the
#: migration so …").
_WORK_VERBS = frozenset(
    ("add", "write", "create", "implement", "build", "generate", "scaffold", "draft", "set")
)
#: What, after "before you", starts the work rather than sets a rule for it ("before you start
#: on the reconciliation: …").
_STARTS = frozenset(("start", "starting", "begin", "touch", "dive", "jump", "get", "work"))
#: Words that, with an opening "before you", make it a rule ("before you edit anything under
#: generated/ - don't").
_NOT_TOLD = frozenset(("don't", "never", "not"))
#: How many words a message's opening "for the …," may hold to name the work it asks for.
_FOR_THE = 6
#: Words of a request that asks ("can you add …?"), a question that hands over new work.
_REQUESTS = frozenset(("can", "could", "would"))


#: Words after a "for" that point at a piece of work ("for the load test", "for this one").
_PIECE = frozenset(("the", "this", "that", "these", "those", "a", "an", "each"))


def _for_the_work(said):
    """Whether the first clause of ``said`` names the piece of work it is for ("use a dict
    keyed by id for the cache"): a choice for that piece, where a rule gives its reason
    instead ("use the https remote, CI has no ssh key")."""
    first = _words_of(_clauses(said, _CLAUSE_ENDS)[0])
    return any(a == "for" and b in _PIECE for a, b in itertools.pairwise(first))


def _new_work(tokens, words, said):
    """Whether the message asks for new work: it opens, past an approval, with "next", "one
    more", "now" and a verb of work, or such a verb ("add …", "please write …"), or it starts
    the work ("before you start on …"), or a sentence of it asks "can you …?". Its "don't",
    "use" and "make sure" are then the new work's constraints ("next: add tracing, use the
    otel transport, don't hand-roll spans"), no correction of what was done. (``words`` are
    ``tokens`` without their breaks.)"""
    at = 0
    while at < len(words) and (words[at] in _FILLERS or words[at] in _APPROVALS):
        at += 1
    opening = words[at : at + 3]
    if opening[:1] == ["please"]:
        opening = opening[1:]
    if (opening[:1] == ["next"] and opening[1:2] != ["time"]) or opening[:2] == ["one", "more"]:
        return True
    if opening[:1] == ["now"] and opening[1:2] and opening[1] in _WORK_VERBS:
        return True
    if opening[:1] and opening[0] in _WORK_VERBS:
        return True
    if opening[:1] == ["use"] and _for_the_work(said):
        return True  # ("use the staging config for the load test": how to do this piece)
    if opening[:2] == ["for", "the"] and len(_clauses(said, (", ",))[0].split()) <= _FOR_THE:
        return True  # ("for the CSV importer, stick to the stdlib": how the work is to be done)
    if opening[:2] == ["before", "you"] and _NOT_TOLD.isdisjoint(words):
        return True  # ("before you open the PR, squash the commits": the step before the next)
    if ("before" in words or "new" in words) and any(
        ((a, b) == ("before", "you") and c in _STARTS) or (a, b, c) == ("for", "the", "new")
        for a, b, c in zip(words, words[1:], words[2:], strict=False)
    ):
        return True  # (and "… for the new upload function, use the retry decorator")
    if ("next", _BREAK) in itertools.pairwise(tokens):
        return True  # ("websocket reconnect next.")
    if "?" not in said or _REQUESTS.isdisjoint(words):
        return False
    for sentence in _clauses(said, (*_CLAUSE_ENDS, " - ", " — ")):
        asked = _words_of(sentence)
        while asked and asked[0] in _FILLERS:
            asked = asked[1:]
        if (
            sentence.rstrip().endswith("?")
            and asked[:1]
            and asked[0] in _REQUESTS
            and asked[1:2] == ["you"]
            and asked[2:3] != ["not"]
        ):
            return True
    return False


#: Words that look back at what the agent did: a request that holds one corrects after all
#: ("can you use the helper instead of writing a new parser?", "you deleted the wrong test").
#: (Not "you set", "you put": "can you set up …" asks.)
_LOOKS_BACK = (
    "you used", "you deleted", "you removed", "you added", "you changed", "you made",
    "you wrote", "you ran", "you left", "you created", "you moved", "you renamed",
    "you committed", "you pushed", "you installed", "you broke", "you forgot", "you missed",
    "you didn't", "you did", "you just", "you keep", "you still", "you're still", "again",
    "that's", "that is", "this is not", "it's not", "wrong", "not what", "revert", "undo",
    "put it back", "why did", "why are you", "are you sure", "i told", "i said", "i asked",
    "instead of", "third time", "went over this", "as discussed",
)  # fmt: skip


def _looks_back(words, padded, said):
    """Whether the message speaks of what the agent did (:data:`_LOOKS_BACK`), sets a thing
    against another ("can you put it in AGENTS.md, not a skill?"), or opens with "no" or
    "stop"."""
    first = next((w for w in words if w not in _FILLERS), "")
    if first in ("no", "nope", "stop") or ", not " in said.lower():
        return True
    return any(" " + phrase + " " in padded for phrase in _LOOKS_BACK)


def _contrast(lowered, words):
    """ "Put it in AGENTS.md, not a skill", "use bun run not a path": a choice set against
    another one."""
    if " instead" in " " + lowered or " rather than " in f" {lowered} ":
        return True
    for after in lowered.split(", not ")[1:]:
        if after.split(" ", 1)[0] not in _NOT_CONTRAST:
            return True
    if any(word in _USE and "not" in words[i + 2 : i + 6] for i, word in enumerate(words)):
        return True
    return any(
        word == "not" and _things_set_apart(words[i - 1], words[i + 1])
        for i, word in enumerate(words[1:-1], start=1)
    )


#: Words before a "not" that make it a verb's or a hedge's ("is not", "why not", "or not").
_NOT_AFTER = frozenset(
    (
        "is", "are", "was", "were", "be", "been", "do", "does", "did", "can", "could", "should",
        "would", "will", "shall", "may", "might", "must", "have", "has", "had", "it's",
        "that's", "i'm", "you're", "we're", "they're", "there's", "why", "or", "and", "if",
        "but", "whether", "so", "as", "just", "still", "maybe", "perhaps", "let's", "me",
        "it", "i", "you", "we", "they", "he", "she", "to", "am", "need", "needs",
    )
)  # fmt: skip
#: Words after it that make it describe a state: "file not found", "tests not running".
_NOT_STATE = frozenset(
    ("a", "an", "the", "to", "be", "found", "set", "available", "ready", "done", "yet", "in",
     "on", "at", "for", "with", "from", "all", "every", "even", "now", "sure", "so", "too")
)  # fmt: skip


def _things_set_apart(before, after):
    """ "5173 not 3000", "`yarn dlx` not npx", "trunk not master": two things set against each
    other with a bare "not", which a verb's "not" ("is not", "why not") or a state ("module not
    found", "tests not passing") is not."""
    if before in _NOT_AFTER or before.endswith(("n't", "ly")) or before == _BREAK:
        return False
    return (
        after not in _NOT_STATE and after not in _NOT_CONTRAST and not after.endswith(("ed", "ing"))
    )


def ask_text(manifest):
    """The one line the hook adds to a correcting prompt."""
    from lessons_core.hot.reminders import how_to_record

    return (
        "The user is correcting you. If the correction states a rule a future session should "
        f"follow, {how_to_record(manifest)}."
    )
