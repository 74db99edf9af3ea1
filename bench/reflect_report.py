"""Tables and the JSON summary of bench/reflect_eval.py, and the targets of the issue."""

TARGET_LEARNED = 0.8
TARGET_SURFACED = 0.8


def pct(n, d):
    return round(100.0 * n / d, 1) if d else 0.0


def summarise(result, shape, top):
    lessons = result["lessons"]
    n = len(lessons)
    learned = sum(1 for r in lessons if r["learned"])
    surfaced = sum(1 for r in lessons if r["surfaced"])
    feedback_ok = all(r["ok"] for r in result["feedback"]) and result["runs"]["secondRunUnchanged"]
    by_kind = {}
    for r in lessons:
        k = by_kind.setdefault(r["kind"], {"lessons": 0, "learned": 0, "surfaced": 0})
        k["lessons"] += 1
        k["learned"] += r["learned"]
        k["surfaced"] += r["surfaced"]
    targets = {
        "learned": {"value": pct(learned, n), "target": ">= %d%%" % (TARGET_LEARNED * 100),
                    "met": learned >= TARGET_LEARNED * n},
        "surfacedTop%d" % top: {"value": pct(surfaced, n), "target": ">= %d%%" % (TARGET_SURFACED * 100),
                                "met": surfaced >= TARGET_SURFACED * n},
        "rulesFromLessonFree": {"value": len(result["fromLessonFree"]), "target": "0",
                                "met": not result["fromLessonFree"]},
        "secretsInRules": {"value": len(result["secretsInRules"]), "target": "0", "met": not result["secretsInRules"]},
        "inlineFeedbackExactlyOnce": {"value": feedback_ok, "target": "true", "met": feedback_ok},
    }
    return {
        "fixtures": shape,
        "runs": result["runs"],
        "lessons": n, "learned": learned, "surfaced": surfaced, "byKind": by_kind,
        "rulesAdded": result["added"],
        "rulesFromLessonFree": result["fromLessonFree"],
        "rulesFromFeedbackSessions": result["fromFeedbackSessions"],
        "rulesOffTarget": result["offTarget"],
        "secretsInRules": result["secretsInRules"],
        "duplicateLessonRules": {r["lesson"]: r["rules"] for r in lessons if len(r["rules"]) > 1},
        "feedback": result["feedback"],
        "targets": targets,
        "targetsMet": all(t["met"] for t in targets.values()),
    }


def clip(text, width):
    text = (text or "-").replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def print_tables(result, top):
    print()
    print("%-26s %-4s %-3s %-8s %-5s %s" % ("lesson", "kind", "ses", "learned", "rank", "rule"))
    for r in result["lessons"]:
        print("%-26s %-4s %-3d %-8s %-5s %s" % (
            clip(r["lesson"], 26), r["kind"], r["sessions"], "yes" if r["learned"] else "NO",
            r["rank"] if r["rank"] else "-", clip(r["rule"], 90)))
        if r["learned"] and not r["surfaced"]:
            print("%-26s   top %d for %r: %s" % ("", top, clip(r["laterTask"], 60), ", ".join(r["top"]) or "none"))
    print()
    print("inline feedback (events added by reflection):")
    if not result["feedback"]:
        print("  none expected, none found")
    for f in result["feedback"]:
        print("  %-10s %-8s want %d got %d  %s" % (f["rule"], f["type"], f["want"], f["got"], "ok" if f["ok"] else "WRONG"))
    runs = result["runs"]
    if runs["sessionsReflected"] != runs.get("sessionsExpected", runs["sessionsReflected"]):
        print("WARNING: the first run reflected %d of %d sessions" % (runs["sessionsReflected"], runs["sessionsExpected"]))
    print("second run: %s (%d sessions reflected again)" % (
        "changed nothing" if runs["secondRunUnchanged"] else "CHANGED the playbook", runs["sessionsReflectedAgain"]))
    for title, key in (("rules from lesson-free sessions", "fromLessonFree"),
                       ("rules from inline-feedback sessions", "fromFeedbackSessions"),
                       ("rules from lesson sessions matching no lesson", "offTarget"),
                       ("rules holding a secret from a session", "secretsInRules")):
        rows = result[key]
        print("%s: %d" % (title, len(rows)))
        for row in rows:
            print("  %s %s  [%s]" % (row["id"], clip(row["content"], 90), ", ".join(row["sessions"]) or "no provenance"))
    print()
