//! Drift written back into the config files (`drift --write`, `--diff`): each drifted managed
//! field whose value is written once, in plain sight, gets the live value spliced over the
//! bytes of its span, so comments, key order, blank lines, quoting, anchors and every other
//! byte stay as they were. What cannot be edited that way is listed for a person:
//!
//! - a value inside an anchored node (an alias or a `<<` merge shares it with other uses);
//! - a value holding `${env:...}` (the variable, not the file, says what it is);
//! - a value a template instance copied (the template serves every instance; the place given
//!   is the instance's `forEach` entry, see [`instance`]);
//! - a secret (its value is never shown);
//! - what no single scalar holds: a field missing on one side, a list, a value the config
//!   writes in another form (a source name for an id).
//!
//! An object the config declares and live lacks is left as it is and counted for apply: the
//! config may simply be ahead of live (an alert added and not applied yet), and a write-back
//! that removed it would delete a person's work. Only objects that exist live and differ are
//! written.
//!
//! Every edit is checked before it lands ([`verify`]): the new texts load without error, their
//! tree is the old one with exactly the edited values changed, and a plan of the new config
//! against the same live state has no change left at the edited fields.

pub(crate) mod adopt;
pub(crate) mod files;
pub(crate) mod instance;
pub(crate) mod locate;
pub(crate) mod model;
pub(crate) mod pipe_id;
pub(crate) mod scalar;
pub(crate) mod shorthand;
pub(crate) mod structure;

use std::fmt::Write as _;
use std::path::PathBuf;

use serde_json::Value;

use crate::address::Address;
use crate::config::model::{Config, Sources};
use crate::config::secret_fields;
use crate::config::yaml::{Kind, Node};
use crate::drift::{Changed, Report};
use crate::live::LiveState;
use crate::plan::Action;
use locate::{Located, Step};
use model::{Context, place};
pub(crate) use model::{Edit, Effect, ManualEdit, Options, Proposal};

/// The edits that make the config of `sources` say what is live for the drift of `report`
/// (found in `live`).
pub(crate) fn propose(
    sources: &Sources,
    report: &Report,
    live: &LiveState,
    options: Options,
) -> Proposal {
    let located = Located::read(sources);
    let mut proposal = Proposal::default();
    let context = Context {
        sources,
        located: &located,
        live,
        options,
    };
    for changed in &report.changed {
        if changed.action == Action::Create {
            proposal.for_apply.push(changed.address.clone());
        } else {
            propose_change(&context, changed, &mut proposal);
        }
    }
    pipe_id::replaced_ids(&context, &mut proposal.edits);
    proposal.edits.sort_by_key(|e| (e.file, e.offset, e.len));
    // One value shared by two drifted fields (a name matched twice) is spliced once; an
    // insertion and a removal at one place (a tile added before an `alerts:` removed) are two.
    proposal
        .edits
        .dedup_by(|a, b| a.file == b.file && a.offset == b.offset && a.len == b.len);
    proposal
}

fn propose_change(context: &Context<'_>, changed: &Changed, out: &mut Proposal) {
    let (sources, located) = (context.sources, context.located);
    let object = object_steps(&changed.address);
    let found = located
        .root
        .as_ref()
        .zip(object.as_ref())
        .and_then(|(root, steps)| locate::find(root, steps, ""));
    let Some((node, pointer)) = found.clone().filter(|_| changed.action == Action::Update) else {
        let reason = match changed.action {
            // Never reached: `propose` leaves what is missing live for apply.
            Action::Create => "missing live: apply creates it",
            Action::Delete => model::LIVE_ONLY,
            // A pipe the server must replace to match: its live fields are not the config's
            // to take (ingestion restarted from another source), so a person decides.
            Action::Replace => "differs in a field that forces replacement: edit it by hand",
            Action::Update | Action::NoOp => "not written in the config as converge edits it",
        };
        out.manual.push(ManualEdit {
            place: found.map(|(node, _)| place(sources, node)),
            address: changed.address.clone(),
            path: String::new(),
            live: None,
            reason: reason.to_string(),
        });
        return;
    };
    let fields = structure::elements(context, changed, node, &pointer, out);
    for field in fields {
        propose_field(context, changed, node, &pointer, field, out);
    }
}

/// The edit of one drifted field of an object found at `node` (`pointer`), or why it is left
/// to a person.
fn propose_field(
    context: &Context<'_>,
    changed: &Changed,
    node: &Node,
    pointer: &str,
    field: &crate::drift::DriftField,
    out: &mut Proposal,
) {
    let (sources, located) = (context.sources, context.located);
    let mut manual = |place: Option<String>, reason: &str, live: Option<&Value>| {
        out.manual.push(ManualEdit {
            place,
            address: changed.address.clone(),
            path: field.path.clone(),
            live: live.cloned(),
            reason: reason.to_string(),
        });
    };
    let nothing_joined = Value::String(String::new());
    let config = config_value(node, field, &nothing_joined);
    let (Some(config), Some(live)) = (config, &field.live) else {
        let reason = if field.live.is_none() {
            "missing live"
        } else {
            "added live; the config does not write it"
        };
        manual(Some(place(sources, node)), reason, field.live.as_ref());
        return;
    };
    let direct = locate::find(node, &locate::steps(&written_path(&field.path)), pointer);
    let via_shorthand = direct.is_none();
    let found = direct.or_else(|| {
        let shorthand = shorthand::series_path(&field.path)?;
        locate::find(node, &locate::steps(&shorthand), pointer)
    });
    let Some((value, pointer)) = found else {
        let (at, reason) = match series_tile(node, &field.path) {
            Some(tile) => (
                tile,
                "the tile is written as `series`, which cannot say this",
            ),
            None => (node, "not written under this name in the config"),
        };
        manual(Some(place(sources, at)), reason, Some(live));
        return;
    };
    // A value found through the shorthand is compared and written as the shorthand
    // writes it (a `groupBy` string as its list).
    let (config, wanted) = if via_shorthand {
        (
            shorthand::as_written(&field.path, config),
            shorthand::as_written(&field.path, live),
        )
    } else {
        (config.clone(), live.clone())
    };
    let at = Some(place(sources, value));
    if secret_fields::is_secret_pointer(&pointer)
        || secret_fields::is_pipe_credential_pointer(&pointer)
    {
        manual(at, "a secret; its value is not shown", None);
    } else if let Some(origin) = sources.instance(value.span) {
        let written = located.written(sources);
        let (at, why) = instance::where_to_edit(sources, written, value, origin);
        manual(Some(at), &why, Some(live));
    } else if value.as_str().is_some_and(|s| s.contains("${")) {
        manual(at, "read from `${env:...}`", Some(live));
    } else if located.shared(value.span.file_index(), value.span.start()) {
        manual(at, "behind an anchor, shared by its aliases", Some(live));
    } else if !locate::same(&value.to_json(), &config) {
        manual(at, "written in another form in the config", Some(live));
    } else if let Some(edit) = splice(sources, value, changed, &field.path, pointer, &wanted) {
        out.edits.push(edit);
    } else {
        manual(at, "not a single value", Some(live));
    }
}

/// Where a drifted field is written when the change names it otherwise: an IP access list
/// entry (`ipAccessList.<source>`, its description) is the `description` of the list item of
/// that source.
fn written_path(path: &str) -> std::borrow::Cow<'_, str> {
    match path.strip_prefix("ipAccessList.") {
        Some(source) => format!("ipAccessList[{source}].description").into(),
        None => path.into(),
    }
}

/// The tile of the dashboard `node` whose `config` field `path` names, when the config writes
/// that tile as `series`.
fn series_tile<'n>(node: &'n Node, path: &str) -> Option<&'n Node> {
    let (tile, _) = path.split_once("].config.")?;
    let steps = locate::steps(&format!("{tile}]"));
    locate::find(node, &steps, "")
        .map(|(tile, _)| tile)
        .filter(|tile| tile.get("series").is_some())
}

/// The config's value of a drifted field. `groupBy: []` lowers to no `groupBy` at all, so the
/// drift says "not set"; the config does write it, as the empty list (`nothing_joined`, the
/// string the server joins it to), which takes the live value like any flow list.
fn config_value<'v>(
    node: &Node,
    field: &'v crate::drift::DriftField,
    nothing_joined: &'v Value,
) -> Option<&'v Value> {
    match &field.config {
        None if field.live.is_some() && shorthand::writes_empty_group_by(node, &field.path) => {
            Some(nothing_joined)
        }
        config => config.as_ref(),
    }
}

/// The edit replacing a scalar `node` by `live`; `None` for a list or mapping on either side.
fn splice(
    sources: &Sources,
    node: &Node,
    changed: &Changed,
    path: &str,
    pointer: String,
    live: &Value,
) -> Option<Edit> {
    let file = sources.file(node.span.file_index())?;
    let written = file.text.get(node.span.range())?;
    let text = match (&node.kind, live) {
        (Kind::Map(_), _) => return None,
        // A list of scalars written on one line in brackets is written the same way.
        (Kind::Seq(_), Value::Array(items)) if written.starts_with('[') => {
            let items: Option<Vec<String>> = items
                .iter()
                .filter(|item| !matches!(item, Value::Array(_) | Value::Object(_)))
                .map(|item| scalar::render(item, scalar::Style::Plain))
                .collect();
            Some(format!("[{}]", items?.join(", ")))
        }
        (Kind::Seq(_), _) => return None,
        _ => None,
    };
    if let Some(text) = text {
        let len = flow_len(&file.text[node.span.start()..])?;
        return Some(Edit {
            file: node.span.file_index(),
            offset: node.span.start(),
            len,
            text,
            address: changed.address.clone(),
            path: path.to_string(),
            pointer,
            effect: Effect::Set(live.clone()),
        });
    }
    let style = scalar::Style::of(written);
    let mut text = scalar::render(live, style)?;
    let mut len = node.span.range().len();
    if style == scalar::Style::Block {
        // A block scalar's span runs over its line breaks; the one-line replacement keeps them.
        let body = written.trim_end_matches(['\n', '\r', ' ']);
        text.push_str(&written[body.len()..]);
        len = written.len();
    }
    Some(Edit {
        file: node.span.file_index(),
        offset: node.span.start(),
        len,
        text,
        address: changed.address.clone(),
        path: path.to_string(),
        pointer,
        effect: Effect::Set(live.clone()),
    })
}

/// The length of the flow list of scalars `text` starts with, through its `]` (the parser's
/// span of a flow list stops short of it); `None` when no `]` outside quotes ends the line.
fn flow_len(text: &str) -> Option<usize> {
    let mut quote = None;
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        if std::mem::take(&mut escaped) {
            continue;
        }
        match (quote, c) {
            (_, '\n') => return None,
            (Some('"'), '\\') => escaped = true,
            (None, '\'' | '"') => quote = Some(c),
            (None, ']') => return Some(at + 1),
            (Some(q), _) if c == q => quote = None,
            _ => {}
        }
    }
    None
}

/// The keys leading from the config's root to the object an address names; `None` for an
/// address no config entry edits field by field.
fn object_steps(address: &str) -> Option<Vec<Step>> {
    let key = |k: &str| Step::Key(k.to_string());
    let keys = Address::parse(address)?.config_keys()?;
    Some(keys.into_iter().map(key).collect())
}

/// The files' texts with the edits spliced in: `(FileId, new text)` for each file that changes.
pub(crate) fn apply(sources: &Sources, edits: &[Edit]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (id, file) in sources.files.iter().enumerate() {
        let mine: Vec<&Edit> = edits.iter().filter(|e| e.file == id).collect();
        if mine.is_empty() {
            continue;
        }
        let mut text = String::with_capacity(file.text.len());
        let mut at = 0;
        for edit in mine {
            text.push_str(file.text.get(at..edit.offset).unwrap_or_default());
            text.push_str(&edit.text);
            at = edit.offset + edit.len;
        }
        text.push_str(file.text.get(at..).unwrap_or_default());
        out.push((id, text));
    }
    out
}

/// The sources with the new texts in place of the old.
pub(crate) fn replaced(sources: &Sources, texts: &[(usize, String)]) -> Sources {
    let mut out = sources.clone();
    out.instances.clear();
    for (id, text) in texts {
        if let Some(file) = out.files.get_mut(*id) {
            file.text = text.as_str().into();
        }
    }
    out
}

/// The edit as a unified diff, file by file, paths as the user named them.
pub(crate) fn diff(sources: &Sources, texts: &[(usize, String)]) -> String {
    let mut out = String::new();
    for (id, new) in texts {
        let Some(file) = sources.file(*id) else {
            continue;
        };
        let path = file.path.display().to_string();
        let diff = similar::TextDiff::from_lines(&*file.text, new.as_str());
        let _ = write!(
            out,
            "{}",
            diff.unified_diff()
                .context_radius(3)
                .header(&format!("a/{path}"), &format!("b/{path}"))
        );
    }
    out
}

/// Checks an edit before it lands: `reload` loads the new texts as the command loads a config
/// (the problems when they do not load), `drift` reports the drift of a config against the
/// live state the drift was found in. The reason it fails, when it does.
pub(crate) fn verify(
    sources: &Sources,
    texts: &[(usize, String)],
    edits: &[Edit],
    reload: impl FnOnce(&[(PathBuf, String)]) -> Result<Config, String>,
    drift: impl FnOnce(&Config) -> Report,
) -> Result<(), String> {
    let new_sources = replaced(sources, texts);
    let files: Vec<(PathBuf, String)> = new_sources
        .files
        .iter()
        .map(|f| (f.path.clone(), f.text.to_string()))
        .collect();
    let config = reload(&files)
        .map_err(|problems| format!("the edited config does not load: {problems}"))?;
    let old = locate::expanded(sources).map(|n| n.to_json());
    let new = locate::expanded(&new_sources).map(|n| n.to_json());
    let (Some(mut expected), Some(new)) = (old, new) else {
        return Err("the edited config holds no mapping".to_string());
    };
    expect(&mut expected, edits)?;
    if !locate::same(&expected, &new) {
        return Err(
            "the edited config differs from the old one in more than the drifted values"
                .to_string(),
        );
    }
    let report = drift(&config);
    for edit in edits {
        let left = report
            .changed
            .iter()
            .filter(|c| c.address == edit.address)
            .any(|c| {
                edit.path.is_empty()
                    || c.fields.iter().any(|f| {
                        f.path == edit.path
                            || f.path
                                .strip_prefix(edit.path.as_str())
                                .is_some_and(|rest| rest.starts_with('.'))
                    })
            });
        if left {
            return Err(format!(
                "a plan of the edited config still changes {} {}",
                edit.address, edit.path
            ));
        }
    }
    Ok(())
}

/// The old tree with the edits' effects: values set first, then entries and items removed
/// (the last of a list first, so the positions of the others hold), then items appended.
fn expect(tree: &mut Value, edits: &[Edit]) -> Result<(), String> {
    let missing = |edit: &Edit| format!("{} {} is not in the config", edit.address, edit.path);
    for edit in edits {
        if let Effect::Set(value) = &edit.effect {
            *tree
                .pointer_mut(&edit.pointer)
                .ok_or_else(|| missing(edit))? = value.clone();
        }
    }
    let mut removals: Vec<(&str, &str, &Edit)> = edits
        .iter()
        .filter(|e| e.effect == Effect::Remove)
        .filter_map(|e| {
            e.pointer
                .rsplit_once('/')
                .map(|(parent, last)| (parent, last, e))
        })
        .collect();
    removals
        .sort_by_key(|&(parent, last, _)| (parent, std::cmp::Reverse(last.parse::<usize>().ok())));
    for (parent, last, edit) in removals {
        let removed = match tree.pointer_mut(parent) {
            Some(Value::Array(items)) => last
                .parse::<usize>()
                .ok()
                .filter(|&at| at < items.len())
                .map(|at| items.remove(at)),
            Some(Value::Object(map)) => map.remove(&last.replace("~1", "/").replace("~0", "~")),
            _ => None,
        };
        removed.ok_or_else(|| missing(edit))?;
    }
    for edit in edits {
        match &edit.effect {
            Effect::Append(value) => match tree.pointer_mut(&edit.pointer) {
                Some(Value::Array(items)) => items.push(value.clone()),
                _ => return Err(missing(edit)),
            },
            Effect::Add(value) => {
                let (parent, key) = edit.pointer.rsplit_once('/').ok_or_else(|| missing(edit))?;
                match tree.pointer_mut(parent) {
                    Some(Value::Object(map)) => {
                        let key = key.replace("~1", "/").replace("~0", "~");
                        map.insert(key, value.clone());
                    }
                    _ => return Err(missing(edit)),
                }
            }
            Effect::Set(_) | Effect::Remove => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
