//! Text that reads like instructions to a model rather than a fact about the work: "ignore the
//! previous instructions", role headers (`### System:`), chat-template tags (`<system>`,
//! `<|im_start|>`, `[INST]`, tool-call markup), "you are now ...", "new system prompt:", and asks
//! to keep something from the user. Run on [`super::normalise::fold`]ed text, so look-alike
//! spellings are caught by the same patterns. Ordinary text costs a handful of substring tests:
//! the patterns compile only when one of [`HINTS`] occurs.

use once_cell::sync::Lazy;
use regex::Regex;

/// Words one of which every pattern needs (folded text is lower case).
const HINTS: &[&str] = &[
    "<",
    "[",
    "ignore",
    "disregard",
    "forget",
    "override",
    "overrule",
    "bypass",
    "discard",
    "set aside",
    "system",
    "assistant",
    "user",
    "human",
    "developer",
    "you are",
    "you're",
    "you will",
    "act as",
    "pretend",
    "jailbreak",
    "dan ",
    "mode",
    "instruction",
    "prompt",
    "tell",
    "reveal",
    "mention",
    "without",
    "admin",
    "begin",
    "end of",
    "above",
    "#",
];

/// One pattern per way of speaking to the model, with the reason it gives.
static PATTERNS: Lazy<Vec<(Regex, &'static str)>> = Lazy::new(|| {
    let verbs = r"(?:ignore|disregard|forget|override|overrule|bypass|set aside|throw away)";
    let fillers = r"(?:(?:all|any|of|the|your|my|these|those|every|each|previous|prior|above|earlier|preceding|foregoing|former|original|initial|that|given|following|safety|system)\s+)*";
    let objects = r"(?:instructions?|prompts?|rules?|messages?|context|directions?|directives?|guidelines?|guidance|commands?|constraints?|polic(?:y|ies)|restrictions?|programming|training|text|conversation)";
    let ignore = "it tells the model to ignore its instructions";
    let src: Vec<(String, &'static str)> = vec![
        (
            format!(r"\b{verbs}\s+{fillers}(?:previous|prior|above|earlier|preceding|foregoing|former|original|initial|system|safety|your)\s+{fillers}{objects}\b"),
            ignore,
        ),
        (
            format!(r"\b{verbs}\s+(?:all|any|every)\s+(?:of\s+)?(?:your\s+|the\s+|my\s+)?(?:instructions|prompts|directions|directives|guidelines|guidance|constraints|restrictions|programming|training)\b"),
            ignore,
        ),
        (
            format!(r"\b{verbs}\s+(?:all\s+|of\s+)*(?:everything|anything|all|whatever|what)(?:\s+(?:that|which|else))?(?:\s+you)?\s+(?:above|earlier|previously|prior|came\s+before|comes\s+before|was\s+said|said|(?:were|have\s+been|had\s+been|was|are)\s+(?:told|given|instructed))"),
            ignore,
        ),
        (
            format!(r"\b{verbs}\s+(?:all\s+)?(?:of\s+)?(?:the|that|this)\s+(?:above|preceding|foregoing)\b"),
            ignore,
        ),
        (
            r"\byou\s+are\s+now\b|\byou'?re\s+now\s+(?:a|an|in|the)\b|\bfrom\s+now\s+on,?\s+you\s+(?:are|will\s+be|must\s+act)\b|\bact\s+as\s+(?:an?\s+)?(?:unrestricted|unfiltered|uncensored|jailbroken|evil|rogue)\b|\bpretend\s+(?:to\s+be|you\s+are|that\s+you)\b|\bjailbr(?:eak|oken)\b|\b(?:dan|god)\s+mode\b|\bdo\s+anything\s+now\b".into(),
            "it tries to give the model a new role",
        ),
        (
            r"\b(?:new|updated|real|actual|true|hidden|secret|revised|overriding|additional|special)\s+(?:system\s+)?(?:prompt|instructions?|directives?|orders|persona)\s*:|\bsystem\s*(?:prompt|override|message|instructions?|note|update|directive)\s*:|\b(?:begin|start|end)\s+(?:of\s+)?(?:the\s+)?(?:system|admin|developer)\s+(?:prompt|instructions?|message|override)\b|\bend\s+of\s+(?:the\s+)?(?:system\s+)?(?:prompt|instructions)\b|\badmin(?:istrator)?\s+override\s*(?::|mode\b|(?:is\s+)?(?:enabled|activated|granted|engaged)\b)".into(),
            "it claims to be a new system prompt",
        ),
        (
            r"(?m)(?:^|#{1,6}|[:.!?;]\s|\*\*|__)\s*(?:[>*_\[(|-]\s*)*(?:system|assistant|user|human|developer)(?:\s+(?:prompt|message|note|instructions?|override))?\s*[\])*_|]*\s*:".into(),
            "it imitates a chat role header",
        ),
        (
            r"</?\s*(?:system|system[-_]reminder|system[-_]prompt|instructions?|important|assistant|developer|tool[-_]?use|tool[-_]?result|tool[-_]?call|function[-_]?calls?|function[-_]?results?|invoke|parameter|antml:[a-z_]+|im[-_]start|im[-_]end|s|inst|sys)\b[^<>\n]{0,200}>|</\s*(?:user|human)\s*>|<\|[a-z_]+\|>|\[/?inst\]|<<\s*/?sys\s*>>|\[/?(?:system|assistant|sys)\]".into(),
            "it carries chat-template or tool-call markup",
        ),
        (
            r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention|reveal|notify|alert)\s+(?:this\s+)?(?:to\s+)?(?:the\s+)?(?:user|human|operator|anyone)(?:[\s.,;:!]|$)".into(),
            "it asks to keep something from the user",
        ),
    ];
    src.into_iter()
        .map(|(s, why)| (Regex::new(&s).expect("injection pattern compiles"), why))
        .collect()
});

/// Why `folded` (see [`super::normalise::fold`]) reads as instructions to a model, if it does.
pub fn find(folded: &str) -> Option<&'static str> {
    if !HINTS.iter().any(|h| folded.contains(h)) {
        return None;
    }
    PATTERNS
        .iter()
        .find(|(re, _)| re.is_match(folded))
        .map(|(_, why)| *why)
}
