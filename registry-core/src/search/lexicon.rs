//! A hand-written lexicon of everyday English words that stand for each
//! other when someone asks for a tool: `make` for `create`, `erase` for
//! `delete`, `picture` for `image`, `folder` for `directory`.
//!
//! A tool says what it does in its author's words; a request says it in
//! the user's. Plain word matching misses every request worded otherwise,
//! and the catalog's own statistics cannot bridge a word no tool uses. The
//! groups below are general English (the vocabulary of software, files,
//! messages, people, places and time), written from general knowledge and
//! not from any catalog or query set, so they carry to catalogs never
//! seen. The ranking adds a query word's group mates as weaker matches
//! (see `index::rank`), weighed by their own rarity, so a mate that every
//! tool says counts for little.
//!
//! Owns: the groups, and their stemmed form (built once, read-only).
//! Never does: decide weights, or read the index.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::tokenize::stem;

/// Words that can stand for each other in a request for a tool. A word
/// may be in several groups (`open` creates an issue and reads a file); it
/// then expands to the mates of all of them, first groups first. Only
/// single words: the query's words are matched one by one.
#[rustfmt::skip]
const GROUPS: &[&[&str]] = &[
    // Making, removing, changing.
    &["create", "make", "new", "add", "generate", "build", "init", "initialize", "creation",
        "register", "setup"],
    &["delete", "remove", "erase", "drop", "destroy", "discard", "forget", "purge", "trash",
        "wipe", "deletion", "removal", "unlink", "uninstall"],
    &["update", "edit", "change", "modify", "alter", "adjust", "revise", "patch", "amend", "tweak",
        "modification"],
    &["set", "configure", "assign", "specify", "define"],
    &["rename", "retitle"],
    &["copy", "duplicate", "clone", "replicate", "fork"],
    &["move", "relocate", "transfer", "shift"],
    &["merge", "combine", "join", "consolidate"],
    &["split", "divide", "separate", "break"],
    &["undo", "revert", "rollback", "restore", "reset", "recover"],
    &["save", "store", "write", "persist", "keep", "record"],
    &["upload", "attach", "import"],
    &["download", "export", "save"],
    &["install", "setup", "deploy"],
    &["deploy", "ship", "release", "publish", "rollout"],
    &["archive", "hide", "shelve"],
    &["enable", "activate", "turn", "allow"],
    &["disable", "deactivate", "block", "mute"],
    // Reading and finding.
    &["get", "fetch", "retrieve", "read", "show", "display", "view", "look", "see", "obtain",
        "load", "open", "inspect", "detail", "details", "info"],
    &["list", "enumerate", "browse", "all", "every", "overview", "index"],
    &["find", "search", "lookup", "query", "locate", "seek", "discover", "look", "hunt", "filter"],
    &["check", "verify", "validate", "test", "assert", "confirm", "ensure"],
    &["compare", "diff", "difference", "differ", "contrast"],
    &["count", "number", "total", "tally"],
    &["summarize", "summary", "overview", "digest", "recap", "brief"],
    &["analyze", "analysis", "examine", "inspect", "investigate", "diagnose", "review", "audit"],
    &["explain", "describe", "description", "definition", "meaning"],
    &["calculate", "compute", "evaluate", "math", "calculation"],
    &["convert", "translate", "transform", "format", "conversion"],
    &["sort", "order", "rank", "arrange"],
    &["watch", "monitor", "track", "follow", "observe", "subscribe", "watcher"],
    &["unwatch", "unfollow", "unsubscribe", "mute"],
    // Doing and stopping.
    &["run", "execute", "invoke", "launch", "trigger", "call", "perform", "start", "kick"],
    &["start", "begin", "open", "launch", "kick"],
    &["stop", "cancel", "kill", "terminate", "abort", "halt", "end", "interrupt", "quit", "exit"],
    &["close", "finish", "complete", "resolve", "done", "end", "shut"],
    &["pause", "suspend", "wait", "sleep", "delay", "hold"],
    &["resume", "continue", "unpause", "restart"],
    &["retry", "rerun", "repeat", "again"],
    &["schedule", "plan", "book", "reserve", "appointment"],
    &["send", "post", "publish", "share", "message", "notify", "submit", "deliver", "dispatch",
        "tell", "broadcast"],
    &["reply", "respond", "answer", "response"],
    &["comment", "remark", "note", "feedback", "annotate", "annotation"],
    &["approve", "accept", "confirm", "allow", "grant", "ok"],
    &["reject", "decline", "deny", "refuse", "dismiss"],
    &["assign", "allocate", "delegate", "assignee", "owner"],
    &["invite", "add", "onboard"],
    &["login", "signin", "authenticate", "auth", "authentication", "credential", "logon"],
    &["logout", "signout"],
    &["click", "press", "tap", "push"],
    &["type", "enter", "input", "fill", "write", "key"],
    &["scroll", "swipe"],
    &["navigate", "go", "visit", "goto", "browse", "open"],
    &["screenshot", "capture", "snapshot", "screen", "grab"],
    &["pay", "payment", "charge", "bill", "invoice", "checkout"],
    &["buy", "purchase", "order", "shop"],
    &["play", "stream", "listen", "playback"],
    &["mark", "flag", "tag", "label", "categorize", "classify", "category"],
    &["like", "react", "reaction", "emoji", "favorite", "favourite", "star", "upvote"],
    &["fix", "repair", "resolve", "solve", "patch", "correct"],
    &["print", "output", "render", "emit"],
    &["clean", "clear", "tidy", "prune", "cleanup"],
    &["sync", "synchronize", "synchronise", "refresh", "reload", "pull"],
    &["lock", "protect", "secure", "freeze"],
    &["unlock", "unprotect", "unfreeze"],
    &["connect", "link", "attach", "associate", "relate", "bind"],
    &["disconnect", "unlink", "detach", "unbind"],
    &["remind", "reminder", "alarm", "alert", "notification"],
    &["ask", "question", "prompt", "request", "inquire"],
    &["help", "assist", "support", "guide", "docs", "documentation", "manual", "howto"],
    &["generate", "draw", "produce", "render"],
    &["draw", "paint", "sketch", "diagram"],
    &["measure", "metric", "stat", "statistic", "analytics", "usage"],
    // Things of software and work.
    &["bug", "issue", "ticket", "defect", "problem", "incident", "story"],
    &["error", "exception", "crash", "failure", "fault", "bug", "fail", "broken", "problem"],
    &["picture", "image", "photo", "photograph", "screenshot", "pic", "graphic", "img",
        "thumbnail", "icon"],
    &["video", "movie", "clip", "film", "recording"],
    &["audio", "sound", "music", "song", "track", "voice", "recording"],
    &["note", "memo", "jot", "notebook", "journal"],
    &["memory", "remember", "recall", "memorize", "knowledge", "fact", "observation"],
    &["time", "clock", "hour", "minute", "timezone", "zone", "now", "date"],
    &["date", "day", "today", "tomorrow", "yesterday", "calendar", "deadline", "due"],
    &["weather", "forecast", "temperature", "rain", "climate", "wind", "humidity", "sunny"],
    &["folder", "directory", "dir", "path"],
    &["file", "document", "doc", "attachment"],
    &["text", "content", "contents", "body", "string", "prose"],
    &["repo", "repository", "codebase", "project", "source"],
    &["email", "mail", "inbox", "gmail", "message", "envelope"],
    &["message", "chat", "dm", "conversation", "thread", "text", "sms"],
    &["calendar", "event", "meeting", "appointment", "schedule", "booking", "agenda"],
    &["user", "person", "member", "account", "people", "profile", "contact", "somebody", "someone",
        "identity"],
    &["team", "group", "org", "organization", "organisation", "squad", "crew"],
    &["company", "business", "organization", "organisation", "firm", "enterprise"],
    &["channel", "room", "space", "conversation"],
    &["page", "website", "site", "webpage", "url", "web"],
    &["link", "url", "address", "uri", "href", "hyperlink"],
    &["password", "credential", "secret", "token", "key", "passphrase"],
    &["permission", "access", "role", "privilege", "allowed", "right", "grant"],
    &["setting", "config", "configuration", "preference", "option", "parameter", "setup"],
    &["log", "logs", "history", "audit", "trail", "journal", "activity"],
    &["history", "past", "previous", "earlier", "old", "prior", "log"],
    &["task", "todo", "job", "chore", "item", "assignment", "action"],
    &["job", "task", "workflow", "pipeline", "build", "run", "ci"],
    &["database", "db", "table", "sql", "datastore"],
    &["table", "spreadsheet", "sheet", "grid", "csv"],
    &["row", "record", "entry", "item"],
    &["column", "field", "attribute", "property"],
    &["code", "source", "snippet", "script", "program"],
    &["function", "method", "procedure", "routine"],
    &["commit", "revision", "changeset", "change"],
    &["version", "release", "tag", "revision"],
    &["server", "host", "machine", "instance", "vm", "node"],
    &["container", "docker", "pod", "image"],
    &["cost", "price", "bill", "spend", "spending", "expense", "billing", "fee", "pricing"],
    &["money", "payment", "currency", "cash", "balance", "fund", "transaction"],
    &["customer", "client", "buyer", "subscriber"],
    &["product", "item", "sku", "goods", "merchandise"],
    &["order", "purchase", "checkout", "cart"],
    &["stock", "inventory", "supply"],
    &["location", "place", "address", "position", "coordinate", "geo", "area", "nearby", "city"],
    &["map", "route", "direction", "navigation", "distance", "travel"],
    &["news", "headline", "article", "story"],
    &["article", "post", "blog", "story", "entry", "essay"],
    &["book", "novel", "publication", "library"],
    &["translation", "translate", "language", "locale", "lang"],
    &["word", "term", "definition", "dictionary", "vocabulary"],
    &["web", "internet", "online", "browser", "website"],
    &["workspace", "space", "project", "area"],
    &["dashboard", "chart", "graph", "report", "plot", "visualization", "visualize"],
    &["alert", "alarm", "warning", "notification", "incident", "alerting"],
    &["notification", "notice", "alert", "ping", "inbox"],
    &["review", "approval", "feedback", "critique"],
    &["label", "tag", "category", "keyword", "topic"],
    &["tree", "hierarchy", "structure", "nested", "outline"],
    &["parent", "child", "children", "sub", "subtask", "nested"],
    &["size", "length", "dimension", "big", "large", "bytes"],
    &["title", "heading", "subject", "headline", "caption"],
    &["status", "state", "progress", "health", "condition"],
    &["vulnerability", "security", "cve", "vulnerable", "exploit"],
    &["dependency", "package", "library", "module", "dependencies", "dep"],
    &["cluster", "node", "fleet"],
    &["info", "information", "detail", "details", "metadata", "data", "fact"],
    &["entity", "thing", "object", "node", "item"],
    &["relation", "relationship", "link", "connection", "edge", "association"],
    &["tab", "window", "page"],
    &["form", "input", "field", "textbox", "box"],
    &["button", "element", "control", "widget", "link"],
    &["console", "terminal", "shell", "command", "cli"],
    &["phone", "call", "sms", "mobile", "telephone"],
    &["flight", "plane", "airline", "airport", "fly"],
    &["hotel", "accommodation", "lodging", "stay", "room"],
    &["trip", "travel", "journey", "itinerary", "vacation"],
    &["car", "vehicle", "ride", "taxi", "drive"],
    &["food", "recipe", "meal", "restaurant", "dish", "cook"],
    &["stock", "share", "ticker", "equity", "market"],
    &["sprint", "iteration", "milestone", "cycle"],
    &["epic", "initiative", "feature", "story"],
    &["wiki", "page", "knowledge", "documentation"],
    &["star", "favorite", "favourite", "bookmark"],
    &["variable", "env", "environment", "var"],
    &["key", "apikey", "token", "credential"],
    &["domain", "dns", "hostname"],
    &["storage", "bucket", "disk", "drive", "blob"],
    &["backup", "snapshot", "copy", "archive"],
    // Qualities.
    &["current", "now", "latest", "today", "live", "present", "active"],
    &["recent", "latest", "last", "newest", "new"],
    &["many", "multiple", "several", "batch", "bulk", "mass", "all"],
    &["local", "locally", "disk", "machine"],
    &["remote", "cloud", "online", "hosted"],
    &["private", "secret", "hidden", "internal", "confidential"],
    &["public", "open", "shared", "published"],
    &["fast", "quick", "speed", "performance", "slow", "latency"],
    &["random", "arbitrary", "sample"],
    &["top", "best", "popular", "trending"],
];

/// Most related words one query word expands to, in group order: a word in
/// many groups must not cost a query more than this many lookups.
const MAX_RELATED: usize = 12;

/// The group mates of a stemmed word, stemmed, in group order, without
/// the word itself and without repeats; at most [`MAX_RELATED`]. Empty for
/// a word in no group.
pub(crate) fn related(term: &str) -> &'static [Box<str>] {
    table().get(term).map_or(&[], |mates| mates)
}

/// Per stem, its mates.
type Table = BTreeMap<Box<str>, Box<[Box<str>]>>;

/// Per stem, its mates: built once from [`GROUPS`].
fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table: BTreeMap<Box<str>, Vec<Box<str>>> = BTreeMap::new();
        for group in GROUPS {
            let stems: Vec<String> = group.iter().map(|w| stem(w)).collect();
            for word in &stems {
                let mates = table.entry(word.as_str().into()).or_default();
                for mate in &stems {
                    if mate != word && !mates.iter().any(|m| **m == **mate) {
                        mates.push(mate.as_str().into());
                    }
                }
            }
        }
        table
            .into_iter()
            .map(|(word, mut mates)| {
                mates.truncate(MAX_RELATED);
                (word, mates.into_boxed_slice())
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mates_are_stemmed_and_go_both_ways() {
        assert!(related(&stem("make")).iter().any(|m| **m == stem("create")));
        assert!(
            related(&stem("creating"))
                .iter()
                .any(|m| **m == stem("make"))
        );
        assert!(
            related(&stem("folders"))
                .iter()
                .any(|m| **m == stem("directory"))
        );
        assert!(
            related(&stem("directories"))
                .iter()
                .any(|m| **m == stem("folder"))
        );
        assert!(related("zzz").is_empty());
    }

    #[test]
    fn a_word_is_never_its_own_mate_and_expansions_are_bounded() {
        for (word, mates) in table() {
            assert!(!mates.contains(word), "{word}");
            assert!(mates.len() <= MAX_RELATED, "{word}");
        }
    }

    #[test]
    fn every_word_is_lower_case_and_single() {
        for word in GROUPS.iter().flat_map(|g| g.iter()) {
            assert!(
                word.chars().all(|c| c.is_ascii_lowercase()),
                "{word}: one lower-case word"
            );
        }
    }
}
