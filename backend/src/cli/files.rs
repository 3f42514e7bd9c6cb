//! Writing the files a command produces (`render --out`, `convert --out`) without
//! following a symlink someone left where a file or folder of the bundle goes: each file
//! is written under a new name in its folder and renamed over the old one, so a link at
//! `DIR/deploy.sh` is replaced, never written through (or its target made executable).

use std::io::Write;
use std::path::Path;

/// Writes `contents` to `path` (mode 0755 when `executable`, else 0644), creating its
/// folder when missing and refusing a folder on the way that is a symlink.
pub fn write_file(path: &Path, contents: &str, executable: bool) -> std::io::Result<()> {
    let Some(parent) = path.parent() else {
        return Err(std::io::Error::other(format!(
            "{} has no folder",
            path.display()
        )));
    };
    std::fs::create_dir_all(parent)?;
    let parent_meta = std::fs::symlink_metadata(parent)?;
    if parent_meta.file_type().is_symlink() {
        return Err(std::io::Error::other(format!(
            "{} is a symlink; the bundle's files are not written through it",
            parent.display()
        )));
    }
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = parent.join(format!(".{name}.{}.tmp", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    // `create_new` (O_EXCL) fails on an existing name, a symlink included.
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, if executable { 0o755 } else { 0o644 });
    #[cfg(not(unix))]
    let _ = executable;
    let _ = std::fs::remove_file(&temporary);
    let written = options.open(&temporary).and_then(|mut file| {
        file.write_all(contents.as_bytes())?;
        file.sync_all()
    });
    if let Err(error) = written {
        let _ = std::fs::remove_file(&temporary);
        return Err(error);
    }
    // The umask may have taken bits the bundle's scripts need.
    #[cfg(unix)]
    if executable {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&temporary, std::fs::Permissions::from_mode(0o755))?;
    }
    std::fs::rename(&temporary, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temporary);
    })
}

/// A new folder of this user's only (0700) under the system's temporary folder, named
/// `{prefix}-` and 16 random hex digits, created exclusively: a name that exists (a folder
/// or a link someone left) is never used, another random name is tried instead.
pub fn new_private_dir(prefix: &str) -> std::io::Result<std::path::PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let mut last = None;
    for _ in 0..8 {
        let mut random = [0u8; 8];
        getrandom::fill(&mut random).map_err(|error| std::io::Error::other(error.to_string()))?;
        let suffix: String = random.iter().map(|byte| format!("{byte:02x}")).collect();
        let dir = std::env::temp_dir().join(format!("{prefix}-{suffix}"));
        // Not recursive: `mkdir` fails on anything already at that name.
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => last = Some(error),
            Err(error) => return Err(error),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free name")))
}

#[cfg(test)]
mod tests {
    use super::{new_private_dir, write_file};

    /// Each apply's folder is new, the user's alone, and never one that was there.
    #[test]
    fn a_private_folder_is_new_each_time_and_the_user_s_alone() {
        use std::os::unix::fs::PermissionsExt;
        let first = new_private_dir("eks-studio-files-test").unwrap();
        let second = new_private_dir("eks-studio-files-test").unwrap();
        assert_ne!(first, second);
        for dir in [&first, &second] {
            let mode = std::fs::metadata(dir).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o700, "{}", dir.display());
            assert!(
                std::fs::read_dir(dir).unwrap().next().is_none(),
                "made empty, not reused"
            );
            std::fs::remove_dir(dir).unwrap();
        }
    }

    #[test]
    fn a_symlink_in_the_way_is_replaced_not_written_through() {
        let dir = std::env::temp_dir().join(format!("eks-studio-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("out")).unwrap();
        let victim = dir.join("victim");
        std::fs::write(&victim, "keep me").unwrap();
        std::os::unix::fs::symlink(&victim, dir.join("out/deploy.sh")).unwrap();

        write_file(&dir.join("out/deploy.sh"), "#!/bin/sh\n", true).unwrap();

        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&victim).unwrap().permissions().mode() & 0o111,
            0
        );
        let written = dir.join("out/deploy.sh");
        assert!(
            !std::fs::symlink_metadata(&written)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&written).unwrap(), "#!/bin/sh\n");
        assert_eq!(
            std::fs::metadata(&written).unwrap().permissions().mode() & 0o777,
            0o755
        );

        // A folder of the bundle that is a symlink is refused.
        std::os::unix::fs::symlink(dir.join("elsewhere"), dir.join("out/karpenter")).unwrap();
        std::fs::create_dir_all(dir.join("elsewhere")).unwrap();
        let error = write_file(&dir.join("out/karpenter/nodepools.yaml"), "x", false).unwrap_err();
        assert!(error.to_string().contains("is a symlink"), "{error}");
        assert!(!dir.join("elsewhere/nodepools.yaml").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
