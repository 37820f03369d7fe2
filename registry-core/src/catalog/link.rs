//! Making sure tools declared in other crates reach the binary's list.

/// Links tool crates that the binary never names, so their `#[tool]`s reach
/// [`BaseTools::linked`](crate::catalog::BaseTools::linked).
///
/// Rust links a dependency only when the program refers to something in
/// it. A crate that holds nothing but `#[tool]` structs is often never
/// referred to, and then its tools silently vanish from the list. Write
/// this once in the binary (or in the test file) that builds the list:
///
/// ```text
/// registry_core::link!(my_fs_tools, my_web_tools);
/// ```
///
/// Each name is the crate as Rust spells it (`my-fs-tools` becomes
/// `my_fs_tools`). To catch a forgotten `link!`, have a test call
/// [`BaseTools::require_crates`](crate::catalog::BaseTools::require_crates) with the
/// crates that must contribute tools.
#[macro_export]
macro_rules! link {
    ($($krate:ident),+ $(,)?) => {
        $(
            #[allow(unused_extern_crates)]
            extern crate $krate as _;
            $crate::__private::inventory::submit! {
                $crate::__private::LinkedCrate(::core::stringify!($krate))
            }
        )+
    };
}
