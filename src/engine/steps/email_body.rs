//! An email step's body as what leaves Herald: email-safe HTML and its plain-text alternative.
//!
//! - `editorType: html`: the body is the HTML as written; the text is derived from it.
//! - `editorType: block` (the default): the body is a block-editor document, either the editor's
//!   ProseMirror/TipTap JSON (`{"type": "doc", "content": [...]}`: paragraphs, headings, marks, links,
//!   lists, quotes, rules, images, buttons, spacers) or the older list of EmailBlocks
//!   (`[{"type": "text" | "button", "content", "url", "styles": {"textAlign"}}]`). Both become a
//!   600-pixel table layout with inline styles, the form mail clients render reliably; text is escaped,
//!   so variables rendered into it cannot inject markup. A body that is not such a document is taken as
//!   HTML.

use serde_json::Value;

const FONT: &str = "font-family:Helvetica,Arial,sans-serif;color:#1f2937;";

/// The block-editor document a body holds, unless the step's editor is `html` or the body is not one.
/// Read before Liquid runs: the engine renders the document's strings one by one, so a variable's value
/// cannot break its JSON.
pub fn block_document(body: &str, editor_type: Option<&str>) -> Option<Value> {
    match editor_type {
        Some("html") => None,
        _ => serde_json::from_str::<Value>(body.trim()).ok().filter(is_block_document),
    }
}

/// A (rendered) block document as email HTML and its plain text.
pub fn from_blocks(document: &Value) -> (String, String) {
    let mut out = Output::default();
    match document {
        Value::Array(blocks) => blocks.iter().for_each(|block| email_block(block, &mut out)),
        doc => children(doc, &mut out),
    }
    (layout(&out.html), tidy_text(&out.text))
}

fn is_block_document(value: &Value) -> bool {
    match value {
        Value::Object(_) => value["type"] == "doc",
        Value::Array(blocks) => blocks.iter().all(|block| block["type"] == "text" || block["type"] == "button"),
        _ => false,
    }
}

#[derive(Default)]
struct Output {
    html: String,
    text: String,
}

impl Output {
    fn row(&mut self, style: &str, inner: &str) {
        self.html.push_str(&format!("<tr><td style=\"{FONT}{style}\">{inner}</td></tr>"));
    }
}

fn layout(rows: &str) -> String {
    format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><meta name=\"viewport\" \
         content=\"width=device-width,initial-scale=1\"></head><body style=\"margin:0;padding:0;\">\
         <table role=\"presentation\" width=\"100%\" cellpadding=\"0\" cellspacing=\"0\" border=\"0\"><tr>\
         <td align=\"center\"><table role=\"presentation\" width=\"600\" cellpadding=\"0\" cellspacing=\"0\" \
         border=\"0\" style=\"max-width:600px;width:100%;\">{rows}</table></td></tr></table></body></html>"
    )
}

/// The older EmailBlock list.
fn email_block(block: &Value, out: &mut Output) {
    let content = block["content"].as_str().unwrap_or_default();
    let align = alignment(block["styles"]["textAlign"].as_str());
    match block["type"].as_str() {
        Some("button") => button(content, block["url"].as_str().unwrap_or_default(), align, out),
        _ => {
            out.row(&format!("padding:8px 24px;font-size:16px;line-height:24px;text-align:{align};"), &escape(content));
            out.text.push_str(&format!("{content}\n\n"));
        }
    }
}

fn alignment(value: Option<&str>) -> &'static str {
    match value {
        Some("center") => "center",
        Some("right") => "right",
        _ => "left",
    }
}

fn button(label: &str, url: &str, align: &str, out: &mut Output) {
    out.row(
        &format!("padding:12px 24px;text-align:{align};"),
        &format!(
            "<a href=\"{}\" style=\"display:inline-block;padding:12px 20px;background:#111827;color:#ffffff;\
             border-radius:6px;text-decoration:none;font-weight:bold;{FONT}color:#ffffff;\">{}</a>",
            escape(url),
            escape(label)
        ),
    );
    out.text.push_str(&format!("{label}: {url}\n\n"));
}

fn children(node: &Value, out: &mut Output) {
    for child in node["content"].as_array().into_iter().flatten() {
        block_node(child, out);
    }
}

/// A top-level (block) node of a ProseMirror document.
fn block_node(node: &Value, out: &mut Output) {
    let attrs = &node["attrs"];
    let align = alignment(attrs["textAlign"].as_str().or(attrs["alignment"].as_str()));
    match node["type"].as_str().unwrap_or_default() {
        "paragraph" => {
            let (html, text) = inline(node);
            let html = if html.is_empty() { "&nbsp;".to_owned() } else { html };
            out.row(&format!("padding:8px 24px;font-size:16px;line-height:24px;text-align:{align};"), &html);
            out.text.push_str(&format!("{text}\n\n"));
        }
        "heading" => {
            let level = attrs["level"].as_u64().unwrap_or(1).clamp(1, 6);
            let size = [0, 28, 24, 20, 18, 16, 14][level as usize];
            let (html, text) = inline(node);
            out.row(
                &format!("padding:16px 24px 8px;text-align:{align};"),
                &format!("<h{level} style=\"margin:0;font-size:{size}px;line-height:1.3;{FONT}\">{html}</h{level}>"),
            );
            out.text.push_str(&format!("{}\n\n", text.to_uppercase()));
        }
        "bulletList" | "orderedList" => {
            let ordered = node["type"] == "orderedList";
            let tag = if ordered { "ol" } else { "ul" };
            let mut items = String::new();
            for (index, item) in node["content"].as_array().into_iter().flatten().enumerate() {
                let (html, text) = list_item(item);
                items.push_str(&format!("<li style=\"margin:0 0 4px;\">{html}</li>"));
                let marker = if ordered { format!("{}.", index + 1) } else { "-".to_owned() };
                out.text.push_str(&format!("{marker} {text}\n"));
            }
            out.text.push('\n');
            out.row(
                "padding:8px 24px;font-size:16px;line-height:24px;",
                &format!("<{tag} style=\"margin:0;padding-left:24px;\">{items}</{tag}>"),
            );
        }
        "blockquote" => {
            let mut inner = Output::default();
            children(node, &mut inner);
            let text = tidy_text(&inner.text);
            out.row(
                "padding:8px 24px;",
                &format!(
                    "<table role=\"presentation\" width=\"100%\" cellpadding=\"0\" cellspacing=\"0\"><tr><td \
                     style=\"border-left:4px solid #d1d5db;padding:0 0 0 12px;\"><table role=\"presentation\" \
                     width=\"100%\">{}</table></td></tr></table>",
                    inner.html
                ),
            );
            out.text.push_str(&format!(
                "{}\n\n",
                text.lines().map(|line| format!("> {line}")).collect::<Vec<_>>().join("\n")
            ));
        }
        "horizontalRule" => {
            out.row("padding:16px 24px;", "<hr style=\"border:none;border-top:1px solid #e5e7eb;margin:0;\">");
            out.text.push_str("---\n\n");
        }
        "image" => {
            let src = attrs["src"].as_str().unwrap_or_default();
            let alt = attrs["alt"].as_str().unwrap_or_default();
            out.row(
                &format!("padding:8px 24px;text-align:{align};"),
                &format!(
                    "<img src=\"{}\" alt=\"{}\" style=\"display:block;max-width:100%;height:auto;border:0;\">",
                    escape(src),
                    escape(alt)
                ),
            );
            if !alt.is_empty() {
                out.text.push_str(&format!("[{alt}]\n\n"));
            }
        }
        "button" => {
            let label = attrs["text"].as_str().or(attrs["label"].as_str()).unwrap_or_default();
            button(label, attrs["url"].as_str().unwrap_or_default(), align, out);
        }
        "spacer" => {
            let height = attrs["height"].as_u64().unwrap_or(16).min(200);
            out.row(&format!("height:{height}px;line-height:{height}px;font-size:0;"), "&nbsp;");
        }
        _ => children(node, out),
    }
}

/// A list item's paragraphs, joined on one line.
fn list_item(item: &Value) -> (String, String) {
    let parts: Vec<(String, String)> = item["content"].as_array().into_iter().flatten().map(inline).collect();
    let html = parts.iter().map(|(html, _)| html.as_str()).collect::<Vec<_>>().join("<br>");
    let text = parts.iter().map(|(_, text)| text.as_str()).collect::<Vec<_>>().join(" ");
    (html, text)
}

/// The inline content of a paragraph or heading: text with marks, hard breaks, inline images.
fn inline(node: &Value) -> (String, String) {
    let mut html = String::new();
    let mut text = String::new();
    for child in node["content"].as_array().into_iter().flatten() {
        match child["type"].as_str().unwrap_or_default() {
            "text" => {
                let content = child["text"].as_str().unwrap_or_default();
                let mut piece = escape(content);
                let mut link = None;
                for mark in child["marks"].as_array().into_iter().flatten() {
                    piece = match mark["type"].as_str().unwrap_or_default() {
                        "bold" => format!("<strong>{piece}</strong>"),
                        "italic" => format!("<em>{piece}</em>"),
                        "underline" => format!("<u>{piece}</u>"),
                        "strike" => format!("<s>{piece}</s>"),
                        "code" => format!("<code>{piece}</code>"),
                        "link" => {
                            let href = mark["attrs"]["href"].as_str().unwrap_or_default();
                            link = Some(href.to_owned());
                            format!("<a href=\"{}\" style=\"color:#2563eb;\">{piece}</a>", escape(href))
                        }
                        _ => piece,
                    };
                }
                html.push_str(&piece);
                text.push_str(content);
                if let Some(href) = link.filter(|href| !href.is_empty() && href != content) {
                    text.push_str(&format!(" ({href})"));
                }
            }
            "hardBreak" => {
                html.push_str("<br>");
                text.push('\n');
            }
            _ => {
                let (inner_html, inner_text) = inline(child);
                html.push_str(&inner_html);
                text.push_str(&inner_text);
            }
        }
    }
    (html, text)
}

fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            c => escaped.push(c),
        }
    }
    escaped
}

/// The plain text of an HTML body: tags dropped (scripts, styles and the head with their content),
/// block ends as line breaks, list items as `- `, links as `text (href)`, entities decoded.
pub fn html_to_text(html: &str) -> String {
    let mut text = String::new();
    let mut rest = html;
    let mut pending_href: Vec<Option<String>> = Vec::new();
    while let Some(start) = rest.find('<') {
        text.push_str(&decode(&rest[..start]));
        // `<` starts a tag only before a name, `/` or `!`; otherwise it is text (`a <3 b`).
        if !rest[start + 1..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '/' || c == '!') {
            text.push('<');
            rest = &rest[start + 1..];
            continue;
        }
        let Some(end) = rest[start..].find('>') else {
            rest = &rest[start..];
            break;
        };
        let tag = &rest[start + 1..start + end];
        rest = &rest[start + end + 1..];
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        let closing = tag.starts_with('/');
        if !closing && matches!(name.as_str(), "script" | "style" | "head" | "title") {
            let close = format!("</{name}");
            match rest.to_ascii_lowercase().find(&close) {
                Some(at) => rest = &rest[at..],
                None => rest = "",
            }
            continue;
        }
        match (name.as_str(), closing) {
            ("br", _) | ("tr", true) | ("div", true) | ("table", true) => text.push('\n'),
            ("p" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "ul" | "ol" | "blockquote", true) => text.push_str("\n\n"),
            ("hr", _) => text.push_str("\n---\n"),
            ("li", false) => text.push_str("\n- "),
            ("a", false) => pending_href.push(attribute(tag, "href")),
            ("a", true) => {
                if let Some(Some(href)) = pending_href.pop() {
                    text.push_str(&format!(" ({href})"));
                }
            }
            _ => {}
        }
    }
    text.push_str(&decode(rest));
    tidy_text(&text)
}

fn attribute(tag: &str, name: &str) -> Option<String> {
    let lower = tag.to_ascii_lowercase();
    let at = lower.find(&format!("{name}="))? + name.len() + 1;
    let value = &tag[at..];
    let value = match value.chars().next()? {
        quote @ ('"' | '\'') => value[1..].split(quote).next()?,
        _ => value.split_whitespace().next()?,
    };
    Some(decode(value)).filter(|value| !value.is_empty() && !value.starts_with('#'))
}

fn decode(text: &str) -> String {
    let mut decoded = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        decoded.push_str(&rest[..at]);
        rest = &rest[at..];
        let entity = rest.find(';').filter(|end| *end <= 10).map(|end| &rest[1..end]);
        let replacement = entity.and_then(|entity| match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" | "#39" => Some('\''),
            "nbsp" => Some(' '),
            numeric if numeric.starts_with("#x") => {
                u32::from_str_radix(&numeric[2..], 16).ok().and_then(char::from_u32)
            }
            numeric if numeric.starts_with('#') => numeric[1..].parse().ok().and_then(char::from_u32),
            _ => None,
        });
        match (replacement, entity) {
            (Some(c), Some(entity)) => {
                decoded.push(c);
                rest = &rest[entity.len() + 2..];
            }
            _ => {
                decoded.push('&');
                rest = &rest[1..];
            }
        }
    }
    decoded.push_str(rest);
    decoded
}

/// Spaces collapsed within lines, at most one blank line in a row, no blank lines at the ends.
fn tidy_text(text: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    for line in text.lines() {
        let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
        if line.is_empty() && lines.last().is_none_or(|last| last.is_empty()) {
            continue;
        }
        lines.push(line);
    }
    while lines.last().is_some_and(|last| last.is_empty()) {
        lines.pop();
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_block_document_becomes_table_html_with_escaped_text_and_a_text_alternative() {
        let doc = json!({"type": "doc", "content": [
            {"type": "heading", "attrs": {"level": 1}, "content": [{"type": "text", "text": "Order shipped"}]},
            {"type": "paragraph", "content": [
                {"type": "text", "text": "Hi "},
                {"type": "text", "text": "Ada <b>", "marks": [{"type": "bold"}]},
                {"type": "hardBreak"},
                {"type": "text", "text": "track it", "marks": [{"type": "link", "attrs": {"href": "https://acme.io/t?a=1&b=2"}}]}
            ]},
            {"type": "bulletList", "content": [
                {"type": "listItem", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "Socks"}]}]},
                {"type": "listItem", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "Shoes"}]}]}
            ]},
            {"type": "button", "attrs": {"text": "View order", "url": "https://acme.io/o/1", "alignment": "center"}},
            {"type": "horizontalRule"}
        ]});
        let (html, text) = from_blocks(&block_document(&doc.to_string(), Some("block")).unwrap());
        assert!(html.starts_with("<!DOCTYPE html>") && html.contains("width=\"600\""), "{html}");
        assert!(html.contains("<h1 style=\"margin:0;font-size:28px;"), "{html}");
        assert!(
            html.contains("Hi <strong>Ada &lt;b&gt;</strong><br><a href=\"https://acme.io/t?a=1&amp;b=2\""),
            "{html}"
        );
        assert!(
            html.contains("<ul style=\"margin:0;padding-left:24px;\"><li style=\"margin:0 0 4px;\">Socks</li>"),
            "{html}"
        );
        assert!(html.contains("text-align:center;\"><a href=\"https://acme.io/o/1\""), "{html}");
        assert!(!html.contains("<b>"), "text is escaped: {html}");
        assert_eq!(
            text,
            "ORDER SHIPPED\n\nHi Ada <b>\ntrack it (https://acme.io/t?a=1&b=2)\n\n- Socks\n- Shoes\n\nView order: https://acme.io/o/1\n\n---"
        );
    }

    #[test]
    fn the_older_email_blocks_render_too() {
        let blocks = json!([
            {"type": "text", "content": "Your order shipped", "styles": {"textAlign": "right"}},
            {"type": "button", "content": "Track", "url": "https://acme.io/t"}
        ]);
        let (html, text) = from_blocks(&block_document(&blocks.to_string(), None).unwrap());
        assert!(html.contains("text-align:right;\">Your order shipped</td>"), "{html}");
        assert!(html.contains("<a href=\"https://acme.io/t\""), "{html}");
        assert_eq!(text, "Your order shipped\n\nTrack: https://acme.io/t");
    }

    #[test]
    fn html_bodies_get_a_text_alternative_and_are_never_read_as_blocks() {
        let html = "<html><head><style>p{color:red}</style></head><body><h1>Hi&nbsp;Ada</h1><p>Your order \
                    <a href=\"https://acme.io/o\">is here</a> &amp; ready.</p><ul><li>One</li><li>Two</li></ul>\
                    <script>alert(1)</script></body></html>";
        assert_eq!(block_document(html, Some("html")), None);
        assert_eq!(html_to_text(html), "Hi Ada\n\nYour order is here (https://acme.io/o) & ready.\n\n- One\n- Two");
        // A block-editor step whose body is not a document is taken as HTML; an html step's JSON stays text.
        assert_eq!(block_document("<p>plain</p>", Some("block")), None);
        assert_eq!(block_document("{\"type\": \"doc\"}", Some("html")), None);
        assert!(block_document("{\"type\": \"doc\"}", None).is_some());
    }
}
