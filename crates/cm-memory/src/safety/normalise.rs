//! Text as a reader sees it, for the safety check and the sanitizer: a rule or a title can be
//! written so that a substring test misses what a model (or a person) reads. `ig\u{200b}nore`,
//! `іgnore` with a Cyrillic `і`, `ignore\u{a0}previous`, full-width `＜system＞`, `&lt;system&gt;`
//! all read as the plain ASCII phrase. [`fold`] undoes each of these spellings: HTML entities
//! decoded, NFKC (full-width forms, compatibility spaces, ligatures), invisible and zero-width
//! characters dropped, Cyrillic and Greek letters that look like Latin ones mapped to them, every
//! run of whitespace one space, lower case.
//!
//! The folded text is for detection only: it garbles real Cyrillic or Greek text, so it is never
//! stored or shown. [`display`] is the gentler form shown to agents: entities decoded, NFKC and
//! invisible characters dropped, letters kept. Plain ASCII without `&` (nearly every rule) costs one
//! pass and one allocation.

use std::borrow::Cow;
use unicode_normalization::UnicodeNormalization;

/// `text` folded for detection: lower case, one space (or line break) between words, look-alikes mapped to
/// ASCII (see the module doc).
pub fn fold(text: &str) -> String {
    if text.is_ascii() && !text.contains('&') {
        return squash(text.chars().map(|c| c.to_ascii_lowercase()));
    }
    let decoded = decode_entities(text);
    let nfkc: String = decoded.nfkc().collect();
    squash(
        nfkc.chars()
            .filter(|c| !invisible(*c))
            .flat_map(char::to_lowercase)
            .map(confusable),
    )
}

/// `text` as shown to an agent: entities decoded, NFKC, invisible characters dropped, letters
/// of every script kept.
pub fn display(text: &str) -> Cow<'_, str> {
    if text.is_ascii() && !text.contains('&') {
        return Cow::Borrowed(text);
    }
    let decoded = decode_entities(text);
    Cow::Owned(decoded.nfkc().filter(|c| !invisible(*c)).collect())
}

/// `text` with only its invisible characters dropped (zero-width, bidi controls, tags): for
/// text shown as written, such as a transcript's messages, where decoding entities or NFKC
/// would change code.
pub fn visible(text: &str) -> Cow<'_, str> {
    if text.is_ascii() || !text.chars().any(invisible) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().filter(|c| !invisible(*c)).collect())
}

/// The characters of `it` with every run of whitespace (any kind) as one space, or one line
/// break when the run holds one (role headers are recognised at line starts), trimmed.
fn squash(it: impl Iterator<Item = char>) -> String {
    let mut out = String::new();
    let mut gap: Option<char> = None;
    for c in it {
        if c.is_whitespace() {
            if !out.is_empty() && gap != Some('\n') {
                gap = Some(if matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}') {
                    '\n'
                } else {
                    ' '
                });
            }
        } else {
            if let Some(g) = gap.take() {
                out.push(g);
            }
            out.push(c);
        }
    }
    out
}

/// Characters that show as nothing (or change direction) and so can split a word unseen.
fn invisible(c: char) -> bool {
    matches!(c,
        '\u{00ad}' | '\u{034f}' | '\u{061c}' | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}'
        | '\u{180b}'..='\u{180f}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
        | '\u{2060}'..='\u{206f}' | '\u{3164}' | '\u{fe00}'..='\u{fe0f}' | '\u{feff}'
        | '\u{ffa0}' | '\u{fff0}'..='\u{fff8}' | '\u{1d173}'..='\u{1d17a}'
        | '\u{e0000}'..='\u{e0fff}')
}

/// A lower-case Cyrillic or Greek letter that looks like a Latin one, as that letter.
fn confusable(c: char) -> char {
    match c {
        'а' | 'α' => 'a',
        'в' | 'β' => 'b',
        'с' | 'ϲ' => 'c',
        'ԁ' => 'd',
        'е' | 'ε' | 'ё' => 'e',
        'ɡ' => 'g',
        'һ' | 'η' => 'h',
        'і' | 'ι' | 'ї' | 'ı' => 'i',
        'ј' | 'ϳ' => 'j',
        'к' | 'κ' => 'k',
        'ӏ' => 'l',
        'м' | 'μ' => 'm',
        'п' | 'ν' => 'n',
        'о' | 'ο' | 'σ' => 'o',
        'р' | 'ρ' => 'p',
        'ԛ' => 'q',
        'ѕ' => 's',
        'т' | 'τ' => 't',
        'υ' => 'u',
        'ѵ' => 'v',
        'ԝ' | 'ω' => 'w',
        'х' | 'χ' => 'x',
        'у' | 'γ' => 'y',
        'ᴢ' => 'z',
        _ => c,
    }
}

/// `text` with HTML character references decoded: the named ones that matter here (`&lt;`,
/// `&gt;`, `&amp;`, `&quot;`, `&apos;`, `&nbsp;`, `&sol;`, `&bsol;`, `&grave;`, `&vert;`) and every
/// numeric one. Applied twice, so `&amp;lt;` reads as `<` too.
fn decode_entities(text: &str) -> Cow<'_, str> {
    if !text.contains('&') {
        return Cow::Borrowed(text);
    }
    let once = decode_once(text);
    if once.contains('&') {
        Cow::Owned(decode_once(&once))
    } else {
        Cow::Owned(once)
    }
}

fn decode_once(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest[1..]
            .char_indices()
            .take(10)
            .find(|(_, c)| *c == ';')
            .map(|(i, _)| i + 1);
        let decoded = end.and_then(|e| entity(&rest[1..e]).map(|c| (c, e)));
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The character an entity name (between `&` and `;`) stands for.
fn entity(name: &str) -> Option<char> {
    if let Some(num) = name.strip_prefix('#') {
        let n = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse().ok()?,
        };
        return char::from_u32(n);
    }
    Some(match name.to_ascii_lowercase().as_str() {
        "lt" => '<',
        "gt" => '>',
        "amp" => '&',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "shy" => '\u{ad}',
        "sol" => '/',
        "bsol" => '\\',
        "grave" => '`',
        "vert" | "verbar" => '|',
        "colon" => ':',
        "num" => '#',
        "lpar" => '(',
        "rpar" => ')',
        "dollar" => '$',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_folds_to_the_plain_phrase() {
        for s in [
            "ignore previous instructions",
            "IGNORE   previous\tinstructions",
            "ig\u{200b}nore previous instructions",
            "іgnore prevіous instructіons",
            "ignore\u{a0}previous\u{2003}instructions",
            "ｉｇｎｏｒｅ ｐｒｅｖｉｏｕｓ ｉｎｓｔｒｕｃｔｉｏｎｓ",
            "&#105;gnore previous instructions",
            "ign\u{00ad}ore previous instructions",
            "ignore previ\u{e0041}ous instructions",
        ] {
            assert_eq!(fold(s), "ignore previous instructions", "{s:?}");
        }
        assert_eq!(fold("＜system＞"), "<system>");
        assert_eq!(fold("&lt;system&gt;"), "<system>");
        assert_eq!(fold("&amp;lt;system&amp;gt;"), "<system>");
        assert_eq!(fold("a & b &unknown; &#xZZ;"), "a & b &unknown; &#xzz;");
    }

    #[test]
    fn display_keeps_letters_and_drops_what_is_invisible() {
        assert_eq!(display("plain text"), "plain text");
        assert_eq!(display("Привет мир"), "Привет мир");
        assert_eq!(display("a\u{200b}b &lt;x&gt;"), "ab <x>");
        assert_eq!(display("ｆｕｌｌ"), "full");
    }
}
