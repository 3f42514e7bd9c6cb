use super::{Action, Plan};
use crate::model::items::visible;

/// The plan as a person reads it: one line per change with its mark (`+`, `~`, `-/+`,
/// `-`), the fields that change and how it disrupts running pods, the commands under it,
/// the findings, and a summary line.
pub fn human(plan: &Plan) -> String {
    let mut text = String::new();
    if plan.is_empty() {
        text.push_str("No changes: the cluster already is what the design says.\n");
    }
    for change in &plan.changes {
        let fields = if change.fields.is_empty() {
            String::new()
        } else {
            format!(" ({})", visible(&change.fields.join(", ")))
        };
        text.push_str(&format!(
            "{:>3} {} {}{fields}\n",
            change.action.mark(),
            visible(&change.kind),
            visible(&change.name)
        ));
        if change.disruptive {
            text.push_str(&format!(
                "      disrupts: {}\n",
                visible(&change.disruption)
            ));
        }
        for step in &change.steps {
            let words = shell_words(&step.argv());
            match &step.wait {
                Some(wait) => text.push_str(&format!(
                    "      $ {words}    # waits up to {}\n",
                    wait.up_to
                )),
                None => text.push_str(&format!("      $ {words}\n")),
            }
        }
    }
    if !plan.findings.is_empty() {
        text.push('\n');
    }
    for finding in &plan.findings {
        text.push_str(&format!(
            "{}[{}] {}: {}\n  = help: {}\n",
            finding.severity,
            finding.rule,
            visible(&finding.path),
            visible(&finding.message),
            visible(&finding.help)
        ));
    }
    let disruptive = plan
        .changes
        .iter()
        .filter(|change| change.disruptive)
        .count();
    text.push_str(&format!(
        "\nPlan: {}\n",
        summary([
            plan.count(Action::Create),
            plan.count(Action::Update),
            plan.count(Action::Replace),
            plan.count(Action::Delete),
            disruptive,
        ])
    ));
    text
}

/// The plan's summary line from its counts (to create, update, replace, delete, and
/// changes that disrupt running pods): "2 to create, 1 to update, 1 to replace, 0 to
/// delete; 1 disrupts running pods."
pub fn summary([create, update, replace, delete, disruptive]: [usize; 5]) -> String {
    format!(
        "{create} to create, {update} to update, {replace} to replace, {delete} to delete; {disruptive} {} running pods.",
        if disruptive == 1 {
            "disrupts"
        } else {
            "disrupt"
        }
    )
}

/// An argument vector as a shell would need it typed: words with spaces or quotes in
/// single quotes.
fn shell_words(words: &[String]) -> String {
    words
        .iter()
        .map(|word| {
            let word = visible(word);
            let plain = !word.is_empty()
                && word
                    .chars()
                    .all(|char| char.is_ascii_alphanumeric() || "-_=./:@,".contains(char));
            if plain {
                word.into_owned()
            } else {
                format!("'{}'", word.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
