//! The live side of saved searches: the form the plan compares (the server's defaults applied,
//! as `savedSearchRequestSchema` fills them: `''` for `select`, `where` and `orderBy`,
//! `lucene` for `whereLanguage`, `[]` for `tags` and `filters`; tags in the order stored, which
//! is the order sent), the fingerprint, and how a step finds its saved search.

use serde_json::{Value, json};

use crate::api::wire::{SavedSearch, SavedSearchRequest};
use crate::live::LiveState;
use crate::plan::kind::Live;
use crate::plan::target::{Key, StackRef};

/// The `whereLanguage` the server stores when none is sent.
pub(crate) const LUCENE: &str = "lucene";

/// A saved search as the plan shows and compares it: a pinned `sql` filter as its condition
/// (what the config writes), any other stored shape whole.
pub(crate) fn normalized(search: &SavedSearch) -> Value {
    let filters: Vec<Value> = search
        .filters
        .iter()
        .map(|f| {
            let sql = f.get("type").is_none_or(|t| t == "sql");
            match (sql, f.get("condition").and_then(Value::as_str)) {
                (true, Some(condition)) => json!(condition),
                _ => f.clone(),
            }
        })
        .collect();
    let language = if search.where_language.is_empty() {
        LUCENE
    } else {
        search.where_language.as_str()
    };
    json!({
        "name": search.name,
        "sourceId": search.source_id,
        "select": search.select,
        "where": search.where_,
        "whereLanguage": language,
        "orderBy": search.order_by,
        "tags": search.tags,
        "filters": filters,
    })
}

/// What a create or update sends, as the server would store and the plan shows it: the planner
/// shows it as the change's `after`, the saved-plan check compares it with that.
pub(crate) fn sent(body: &SavedSearchRequest) -> Value {
    normalized(&SavedSearch {
        id: String::new(),
        name: body.name.clone(),
        source_id: body.source_id.clone(),
        select: body.select.clone(),
        where_: body.where_.clone(),
        where_language: body.where_language.clone(),
        order_by: body.order_by.clone(),
        tags: body.tags.clone(),
        filters: body.filters.clone(),
    })
}

impl Live for SavedSearch {
    /// The saved search as compared, with its id.
    fn fingerprinted(&self) -> Value {
        let mut value = normalized(self);
        value["id"] = json!(self.id);
        value
    }
}

/// The saved search of stack `stack` that `key` finds in `live` (a create's by its name), as
/// fingerprinted.
pub(crate) fn current(live: &LiveState, stack: &StackRef, key: Key<'_>) -> Option<Value> {
    live.stacks
        .get(&stack.key)?
        .saved_searches
        .iter()
        .find(|s| match key {
            Key::Id(id) => s.id == id,
            Key::Name(name) => s.name == name,
        })
        .map(Live::fingerprinted)
}
