use std::path::Path;

use proptest::prelude::*;

use super::*;

fn p(path: &str) -> AccessKey {
    AccessKey::path(path)
}

#[test]
fn paths_are_normalised_lexically() {
    assert_eq!(p("./a/../a/b"), p("a/b"));
    assert_eq!(p("a//b/"), p("a/b"));
    assert_eq!(p("/x/./y/../z"), p("/x/z"));
    // `..` cannot climb above the root, and is kept at the start of a
    // relative path, whose base is not known yet.
    assert_eq!(p("/../a"), p("/a"));
    assert_eq!(p("../a").to_string(), "path ../a");
    assert_ne!(p("../a"), p("a"));
    assert_eq!(p("a/..").to_string(), "path .");
    assert_eq!(p("/").to_string(), "path /");
}

#[test]
fn a_key_covers_what_it_prefixes_by_component() {
    assert!(p("a").covers(&p("a/b.txt")));
    assert!(p("a/").covers(&p("a/b.txt")));
    assert!(p("a").covers(&p("a")));
    assert!(!p("a/b.txt").covers(&p("a")));
    assert!(!p("a").covers(&p("ab")));
    assert!(!p("a").covers(&p("ab/c")));
    assert!(AccessKey::all_paths().covers(&p("/anything")));
    assert!(AccessKey::database("main").covers(&AccessKey::table("main", "users")));
    assert!(!AccessKey::table("main", "users").overlaps(&AccessKey::table("main", "orders")));
}

#[test]
fn namespaces_never_meet() {
    let path = p("users");
    let table = AccessKey::table("users", "users");
    let db = AccessKey::database("users");
    let named = AccessKey::named("path", "users");
    for (a, b) in [
        (&path, &table),
        (&path, &db),
        (&path, &named),
        (&db, &named),
    ] {
        assert!(!a.overlaps(b), "{a} vs {b}");
        assert!(
            Access::write(a.clone())
                .conflict_with(&Access::write(b.clone()))
                .is_none()
        );
    }
}

#[test]
fn relative_and_absolute_paths_are_assumed_to_overlap() {
    assert!(p("a.txt").overlaps(&p("/w/b.txt")));
    assert!(!p("a.txt").overlaps(&p("b.txt")));
    let mut batch = Footprint::new();
    batch.admit(0, &Access::read(p("/w/b.txt"))).unwrap();
    let conflict = batch.admit(1, &Access::write(p("a.txt"))).unwrap_err();
    assert_eq!(conflict.earlier, 0);
    // Two readers still share.
    batch.admit(2, &Access::read(p("c.txt"))).unwrap();
}

#[test]
fn conflicts_follow_the_read_write_rules() {
    let read_a = Access::read(p("/w/a"));
    let read_ab = Access::read(p("/w/a/b.txt"));
    let write_a = Access::write(p("/w/a/"));
    let write_c = Access::write(p("/w/c"));
    assert!(read_a.conflict_with(&read_ab).is_none());
    assert!(write_a.conflict_with(&read_ab).is_some());
    assert!(read_ab.conflict_with(&write_a).is_some());
    assert!(write_a.conflict_with(&write_c).is_none());
    assert!(Access::read_everything().conflict_with(&read_a).is_none());
    assert!(Access::read_everything().conflict_with(&write_c).is_some());
    assert!(Access::everything().conflict_with(&read_a).is_some());
    assert!(
        Access::none()
            .conflict_with(&Access::read_everything())
            .is_none()
    );
}

#[test]
fn unions_are_normalised() {
    let a = Access::read(p("/a")) | Access::write(p("/a")) | Access::read(p("/b"));
    assert_eq!(a.to_string(), "writes path /a, reads path /b");
    assert_eq!(
        Access::write(p("/a")) | Access::everything(),
        Access::everything()
    );
    let r = Access::read_everything() | Access::read(p("/a")) | Access::write(p("/b"));
    assert_eq!(r.to_string(), "reads everything, writes path /b");
    assert!(r.reads_everything() && !r.writes_everything());
    assert_eq!(Access::none().to_string(), "touches nothing");
    assert_eq!(
        Access::read_all([p("/b"), p("/a")]),
        Access::read(p("/a")) | Access::read(p("/b"))
    );
}

#[test]
fn resolving_anchors_relative_paths_and_follows_symlinks() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir(root.join("real")).unwrap();
    std::fs::write(root.join("real/file.txt"), "x").unwrap();
    let anchored = p("./real/../real/file.txt").resolve(Some(&root));
    assert_eq!(anchored, AccessKey::path(root.join("real/file.txt")));
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(root.join("real"), root.join("link")).unwrap();
        std::os::unix::fs::symlink(root.join("real/file.txt"), root.join("alias.txt")).unwrap();
        // A symlink to the same file is the same key.
        assert_eq!(p("alias.txt").resolve(Some(&root)), anchored);
        assert_eq!(p("link/file.txt").resolve(Some(&root)), anchored);
        // A file about to be created under a symlinked directory is keyed
        // under the directory's target.
        assert_eq!(
            p("link/new.txt").resolve(Some(&root)),
            AccessKey::path(root.join("real/new.txt"))
        );
        // A dangling symlink leads to its target, as it does for the OS.
        std::os::unix::fs::symlink(root.join("missing"), root.join("dangling")).unwrap();
        assert_eq!(
            p("dangling/x").resolve(Some(&root)),
            AccessKey::path(root.join("missing/x"))
        );
        // A loop leads nowhere anyone can say: every path.
        std::os::unix::fs::symlink("loop", root.join("loop")).unwrap();
        assert_eq!(p("loop/x").resolve(Some(&root)), AccessKey::all_paths());
    }
    // Paths that do not exist stay lexical under the canonical root.
    assert_eq!(
        p("no/such/file").resolve(Some(&root)),
        AccessKey::path(root.join("no/such/file"))
    );
    // Other namespaces are left alone.
    let table = AccessKey::table("main", "users");
    assert_eq!(table.resolve(Some(&root)), table);
    // Without a root a relative key covers every path; an absolute one
    // is still canonicalised.
    assert_eq!(p("real/file.txt").resolve(None), AccessKey::all_paths());
    assert_eq!(
        p(&root.join("real/../real/file.txt").display().to_string()).resolve(None),
        anchored
    );
    // An absolute key is canonicalised too.
    assert_eq!(
        AccessKey::path(root.join("real/file.txt")).resolve(Some(Path::new("/elsewhere"))),
        anchored
    );
}

#[test]
fn the_footprint_names_the_earlier_call_and_both_keys() {
    let mut batch = Footprint::new();
    batch.admit(0, &Access::write(p("/w/a.txt"))).unwrap();
    batch.admit(1, &Access::read(p("/w/b"))).unwrap();
    batch.admit(2, &Access::write(p("/w/c.txt"))).unwrap();
    let conflict = batch.admit(3, &Access::write(p("/w/b/x.txt"))).unwrap_err();
    assert_eq!(conflict.earlier, 1);
    assert_eq!(
        conflict.to_string(),
        "writes path /w/b/x.txt, which #1 reads path /w/b"
    );
    let conflict = batch.admit(4, &Access::read(p("/w"))).unwrap_err();
    assert_eq!(
        conflict.to_string(),
        "reads path /w, which #0 writes path /w/a.txt"
    );
    let conflict = batch.admit(5, &Access::read_everything()).unwrap_err();
    assert_eq!(conflict.earlier, 0);
    // A refused call leaves no trace.
    batch.admit(6, &Access::read(p("/w/b/x.txt"))).unwrap();
}

/// A small universe of keys, so generated accesses collide often.
fn touch() -> impl Strategy<Value = Access> {
    let resource = prop_oneof![
        6 => prop::collection::vec(prop::sample::select(vec!["a", "b", "c"]), 0..3)
            .prop_map(|parts| AccessKey::path(format!("/{}", parts.join("/")))),
        1 => prop::collection::vec(prop::sample::select(vec!["a", "b"]), 1..3)
            .prop_map(|parts| AccessKey::path(parts.join("/"))),
        2 => (prop::sample::select(vec!["a", "b"]), prop::option::of(prop::sample::select(vec!["a", "b"])))
            .prop_map(|(db, table)| match table {
                Some(table) => AccessKey::table(db, table),
                None => AccessKey::database(db),
            }),
        1 => prop::sample::select(vec!["a", "b"]).prop_map(|k| AccessKey::named("n", k)),
    ];
    prop_oneof![
        8 => (resource, any::<bool>()).prop_map(|(r, w)| if w { Access::write(r) } else { Access::read(r) }),
        1 => Just(Access::read_everything()),
        1 => Just(Access::everything()),
    ]
}

fn access() -> impl Strategy<Value = Access> {
    prop::collection::vec(touch(), 0..4)
        .prop_map(|parts| parts.into_iter().fold(Access::none(), Access::union))
}

proptest! {
    /// The index answers exactly what comparing with every admitted call
    /// answers (for calls that touch something).
    #[test]
    fn the_footprint_agrees_with_pairwise_comparison(calls in prop::collection::vec(access(), 1..12)) {
        let mut batch = Footprint::new();
        let mut admitted: Vec<(usize, &Access)> = Vec::new();
        for (index, access) in calls.iter().enumerate() {
            let pairwise = admitted.iter().find(|(_, earlier)| access.conflict_with(earlier).is_some());
            match batch.admit(index, access) {
                Ok(()) => {
                    prop_assert!(pairwise.is_none(), "admitted #{index} ({access}) despite {pairwise:?}");
                    admitted.push((index, access));
                }
                Err(conflict) => {
                    prop_assert!(pairwise.is_some(), "refused #{index} ({access}): {conflict}");
                    // The reported pair really conflicts, and is the earlier call's.
                    prop_assert!(conflict.touch.conflicts_with(&conflict.earlier_touch));
                    let earlier = admitted.iter().find(|(i, _)| *i == conflict.earlier).unwrap().1;
                    prop_assert!(access.touches().contains(&conflict.touch));
                    prop_assert!(earlier.touches().contains(&conflict.earlier_touch));
                }
            }
        }
    }

    /// Normalising is idempotent and order-free.
    #[test]
    fn lexical_normalisation_is_idempotent(parts in prop::collection::vec(prop::sample::select(vec!["a", "b", ".", "..", ""]), 0..8), absolute in any::<bool>()) {
        let text = format!("{}{}", if absolute { "/" } else { "" }, parts.join("/"));
        let once = AccessKey::path(&text);
        let shown = once.to_string();
        let again = AccessKey::path(shown.trim_start_matches("path "));
        prop_assert_eq!(once, again);
    }
}

/// `..` after a symlink: the OS resolves `link/..` to the parent of the
/// link's *target*, not to the directory holding the link, so a lexical
/// cut there would key the call under a file it never touches.
#[cfg(unix)]
#[test]
fn dot_dot_after_a_symlink_is_the_targets_parent() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::create_dir_all(root.join("other/deep")).unwrap();
    std::fs::write(root.join("other/f"), "x").unwrap();
    std::os::unix::fs::symlink(root.join("other/deep"), root.join("sub/link")).unwrap();
    let through_link = p("sub/link/../f").resolve(Some(&root));
    let direct = p("other/f").resolve(Some(&root));
    assert!(
        through_link.overlaps(&direct),
        "{through_link} must overlap {direct}: both name the same file"
    );
    // A file not there yet is keyed under the physical parent too.
    let new_through_link = p("sub/link/../new.txt").resolve(Some(&root));
    assert_eq!(new_through_link, p("other/new.txt").resolve(Some(&root)));
    // `..` out of a directory that does not exist fails for the OS: no
    // one can say what the call names, so the key covers every path.
    assert_eq!(
        p("sub/missing/../../x/y").resolve(Some(&root)),
        AccessKey::all_paths()
    );
    // Where the filesystem cannot answer (a file used as a directory),
    // the key covers every path.
    assert_eq!(
        p("other/f/../f").resolve(Some(&root)),
        AccessKey::all_paths()
    );
}

/// A path longer than the OS takes (`PATH_MAX`) is every path, decided by
/// its length before a component is looked at: the executor builds these
/// keys from a model's arguments while it plans, before validation, and a
/// 100 MB `a/a/a/…` would otherwise be fifty million parts and as many
/// hashes. Every path is never looser than what the text could name:
/// it conflicts with any write of any path, relative or absolute.
#[test]
fn a_path_over_path_max_is_every_path_whatever_it_holds() {
    use crate::path::MAX_PATH_BYTES;

    // At the limit: a key like any other, its 2,048 components kept.
    let at_limit = "a/".repeat(MAX_PATH_BYTES / 2);
    assert_eq!(at_limit.len(), MAX_PATH_BYTES);
    let key = p(&at_limit);
    assert_eq!(key, p(at_limit.trim_end_matches('/')));
    assert_ne!(key, AccessKey::all_paths());
    assert!(p("a/a").covers(&key));
    // One byte over, relative or absolute: every path, even when it
    // would normalise to something short and harmless.
    let over = [
        format!("{at_limit}a"),
        format!("/{at_limit}"),
        format!("{}x", "./".repeat(MAX_PATH_BYTES / 2)),
        format!("{}secrets/key", "../a/".repeat(MAX_PATH_BYTES / 4)),
    ];
    for path in &over {
        assert!(path.len() > MAX_PATH_BYTES);
        let key = p(path);
        assert_eq!(key, AccessKey::all_paths(), "{} bytes", path.len());
        for other in [p("x"), p("/w/a.rs"), p("../up")] {
            assert!(key.overlaps(&other), "{other}");
            assert!(
                Access::read(key.clone())
                    .conflict_with(&Access::write(other.clone()))
                    .is_some()
            );
        }
        // Resolving it walks nothing and stays every path.
        assert_eq!(key.resolve(Some(Path::new("/w"))), AccessKey::all_paths());
        assert_eq!(key.resolve(None), AccessKey::all_paths());
    }
    // A 100 MB `a/a/a/…` (fifty million components): the same answer,
    // from its length alone. Nothing is timed; finishing is the point
    // (it took seconds and gigabytes when every component was a part).
    let huge = "a/".repeat(50 * 1024 * 1024);
    assert_eq!(p(&huge), AccessKey::all_paths());
    let mut batch = Footprint::new();
    batch.admit(0, &Access::read(p(&huge))).unwrap();
    let conflict = batch.admit(1, &Access::write(p("/w/b.txt"))).unwrap_err();
    assert_eq!(
        conflict.to_string(),
        "writes path /w/b.txt, which #0 reads path /"
    );
}
