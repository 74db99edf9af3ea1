//! Shortening text for display: at most so many characters, cut at a word boundary with an
//! ellipsis. Rules, commands and ids are clipped wherever they are shown (context output, the
//! safety check's reasons, the repository playbook's notes), so it sits below all of them.

/// At most `max` characters of `text`, cut at a word boundary with an ellipsis when shortened.
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    if let Some(i) = cut.rfind(' ')
        && i > max / 2
    {
        cut.truncate(i);
    }
    cut.push('…');
    cut
}
