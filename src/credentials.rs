//! The local credential store (README "Credentials"): `credentials.json` in the
//! config dir, holding named profiles of hidden context — API URL, workspace,
//! agent, and a token and/or a `credential_process`. This type is the only
//! door to it, so an OS-keyring backend can later live behind the same API.
//!
//! The directory is 0700 and the file 0600; a store that group or others can
//! read is refused rather than used. Writes take an exclusive lock, write a
//! temp file, fsync and rename, so concurrent logins and refreshes never tear
//! the file or lose a profile.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::env_vars;
use crate::error::{Failure, code};
use crate::registry::{Action, Permission};

pub const FILE_NAME: &str = "credentials.json";
pub const DEFAULT_PROFILE: &str = "default";
/// The store's directory and files are its owner's alone.
const DIR_MODE: u32 = 0o700;
const FILE_MODE: u32 = 0o600;

/// The most a store may be: thousands of profiles (one is a few hundred
/// bytes). Every command reads the whole store, so a file far larger (one
/// written by hand, or not a store at all) is refused before it is read
/// rather than parsed for seconds into hundreds of MB; a write that would
/// pass it is refused too, so no login makes a store that cannot be read.
const MAX_STORE_BYTES: u64 = 1 << 20;

/// `MAX_STORE_BYTES` in words.
const MAX_STORE_WORDS: &str = "1 MiB";

/// A secret string: its `Debug` and `Display` never show it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: String) -> Self {
        Secret(value)
    }

    /// The secret itself, for the one place that must send it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// One named profile: the hidden context of one agent (§5.4). A field this
/// version does not know is refused, not ignored: a misspelt
/// `max_permission` would otherwise leave the profile uncapped. Only that
/// profile is refused ([`StoreFile::unreadable`]); the others still work.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    // A profile without one of these is incomplete, not a broken store:
    // the command that selects it says what it lacks (credentials_missing)
    // and every other profile still works.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub api_url: String,
    #[serde(default, deserialize_with = "null_as_empty")]
    pub workspace_id: String,
    #[serde(default, deserialize_with = "null_as_empty")]
    pub agent_id: String,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "blank_as_none"
    )]
    pub token: Option<Secret>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_expires_at: Option<String>,
    /// argv of a process printing `{"token": "…", "expires_at": "…"}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credential_process: Option<Vec<String>>,
    /// The widest permission class (§9.2) this profile may use, whatever its
    /// token allows; `None` is no cap. The CLI refuses an action above it
    /// before sending anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_permission: Option<Permission>,
}

/// A profile field written `null` reads as missing, as a field left out
/// does.
fn null_as_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(Option::<String>::deserialize(d)?.unwrap_or_default())
}

/// A token written `""` (or only blanks) reads as no token, as `null` or a
/// field left out does: it fails locally as `credentials_missing` (or runs
/// the credential process) rather than being sent and refused.
fn blank_as_none<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Secret>, D::Error> {
    Ok(Option::<Secret>::deserialize(d)?.filter(|t| !t.expose().trim().is_empty()))
}

impl Profile {
    /// The widest class this profile may use: its cap, or every class.
    pub fn cap(&self) -> Permission {
        self.max_permission.unwrap_or(Permission::Destructive)
    }

    /// Refuses, before anything is sent, an action above the profile's cap.
    pub fn allows(&self, name: &str, action: &Action) -> Result<(), Failure> {
        let cap = self.cap();
        if action.permission <= cap {
            return Ok(());
        }
        Err(Failure::new(
            code::FORBIDDEN,
            format!(
                "Profile `{name}` is capped at {cap} (max_permission); {} is {}. Nothing was sent. \
                 The cap is its operator's choice: ask them, or use a profile allowed {} if one was given to you.",
                action.name(),
                action.permission,
                action.permission
            ),
        )
        .detail(
            "needed_scope",
            serde_json::Value::from(action.permission.as_str()),
        )
        .detail("max_permission", serde_json::Value::from(cap.as_str())))
    }
}

/// The whole file: a JSON object. What this version cannot read is kept
/// as written and rewritten unchanged, so a store a newer version wrote
/// (a profile field or a top-level key added since) still serves every
/// profile this version can read: a profile it cannot is refused when
/// selected, and replaced by a login or removed by a logout of its name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StoreFile {
    pub default_profile: Option<String>,
    pub profiles: BTreeMap<String, Profile>,
    /// The profiles this version cannot read, by name.
    pub unreadable: BTreeMap<String, Unreadable>,
    /// Top-level keys this version does not know, as written.
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// A profile this version cannot read: as written, and why.
#[derive(Clone, PartialEq)]
pub struct Unreadable {
    written: serde_json::Value,
    /// serde's words when they name a field, else "malformed"; never a value.
    problem: String,
}

impl fmt::Debug for Unreadable {
    // As written it may hold a token.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Unreadable({})", self.problem)
    }
}

impl<'de> Deserialize<'de> for StoreFile {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Written {
            #[serde(default)]
            default_profile: Option<String>,
            #[serde(default)]
            profiles: BTreeMap<String, serde_json::Value>,
            #[serde(flatten)]
            other: serde_json::Map<String, serde_json::Value>,
        }
        let written = Written::deserialize(d)?;
        let mut store = StoreFile {
            default_profile: written.default_profile,
            other: written.other,
            ..StoreFile::default()
        };
        for (name, profile) in written.profiles {
            let read = Profile::deserialize(&profile)
                .map_err(|e| wrong_field(&profile).unwrap_or_else(|| field_words(&e.to_string())));
            // An API URL as `auth login` takes it: one with a password or a
            // query would be sent so (and shown by `auth status` and `-v`).
            let read = read.and_then(|read| match read.api_url.as_str() {
                "" => Ok(read),
                url => match check_api_url(url) {
                    Ok(_) => Ok(read),
                    Err(refused) => Err(format!(
                        "`api_url` {}",
                        refused
                            .field_errors
                            .get("api_url")
                            .map_or("is not valid", String::as_str)
                    )),
                },
            });
            match read {
                Ok(read) => {
                    store.profiles.insert(name, read);
                }
                Err(problem) => {
                    store.unreadable.insert(
                        name,
                        Unreadable {
                            written: profile,
                            problem,
                        },
                    );
                }
            }
        }
        Ok(store)
    }
}

impl Serialize for StoreFile {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeMap};
        // By name, as a map of profiles was written before.
        let mut profiles = BTreeMap::new();
        for (name, unreadable) in &self.unreadable {
            profiles.insert(name, unreadable.written.clone());
        }
        for (name, profile) in &self.profiles {
            let written = serde_json::to_value(profile).map_err(S::Error::custom)?;
            profiles.insert(name, written);
        }
        let mut map = s.serialize_map(None)?;
        if let Some(name) = &self.default_profile {
            map.serialize_entry("default_profile", name)?;
        }
        map.serialize_entry("profiles", &profiles)?;
        // Never `default_profile` or `profiles`: reading took those out.
        for (key, value) in &self.other {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl StoreFile {
    /// Profile `name` of the store at `path`: `credential_store_invalid`
    /// where this version cannot read it, `credentials_missing` where there
    /// is none.
    pub fn selected(&self, name: &str, path: &Path) -> Result<&Profile, Failure> {
        if let Some(profile) = self.profiles.get(name) {
            return Ok(profile);
        }
        match self.unreadable.get(name) {
            Some(unreadable) => Err(unreadable_profile(name, unreadable, path)),
            None if self.other.get(name).is_some_and(shaped_as_profile) => {
                Err(profile_out_of_place(name, path))
            }
            None => Err(missing_profile(name, self, path)),
        }
    }

    /// Whether the store holds profile `name`, readable or not.
    pub fn holds(&self, name: &str) -> bool {
        self.profiles.contains_key(name) || self.unreadable.contains_key(name)
    }

    /// Removes profile `name`, readable or not; whether there was one.
    pub fn remove(&mut self, name: &str) -> bool {
        let readable = self.profiles.remove(name).is_some();
        self.unreadable.remove(name).is_some() || readable
    }
}

/// Whether a top-level value of the store is shaped as a profile: an
/// object with a profile's field, as a store written by hand without its
/// `profiles` has.
fn shaped_as_profile(value: &serde_json::Value) -> bool {
    const FIELDS: [&str; 5] = [
        "api_url",
        "workspace_id",
        "agent_id",
        "token",
        "credential_process",
    ];
    value
        .as_object()
        .is_some_and(|fields| FIELDS.iter().any(|field| fields.contains_key(*field)))
}

/// `credential_store_invalid` for profile `name`, written at the top level
/// of the store (`{"default": {…}}`) where profiles go under `profiles`:
/// the layout, so the file can be mended by hand.
fn profile_out_of_place(name: &str, path: &Path) -> Failure {
    let redacted = crate::redact::tokens(name);
    let name = crate::text::clip(&redacted, crate::text::ECHO_LIMIT);
    invalid(format!(
        "The credential store {} has `{name}` at its top level, shaped as a profile; profiles go under `profiles`: `{{\"default_profile\": \"{name}\", \"profiles\": {{\"{name}\": {{\"api_url\": …, \"workspace_id\": …, \"agent_id\": …, \"token\": …}}}}}}`. Move it there, or make it with `agentteam {} auth login …`.",
        path.display(),
        profile_flag(&name)
    ))
}

/// `credential_store_invalid` for profile `name`, which this version cannot
/// read: what is wrong, and the two commands that mend it.
fn unreadable_profile(name: &str, unreadable: &Unreadable, path: &Path) -> Failure {
    let flag = profile_flag(name);
    invalid(format!(
        "Profile `{name}` in the credential store {} is not valid ({}); repair it, replace it with `agentteam {flag} auth login …`, or remove it with `agentteam {flag} auth logout`. The other profiles still work.",
        path.display(),
        unreadable.problem
    ))
}

/// The first field of a profile written with a value of another type
/// (`"credential_process": "/usr/bin/helper"`), and what it takes: each
/// field is read alone, since serde_json's words for a type name no field
/// and may quote the value (a token put in the wrong place).
fn wrong_field(profile: &serde_json::Value) -> Option<String> {
    let object = profile.as_object()?;
    let (key, _) = object.iter().find(|(key, value)| {
        let alone =
            serde_json::Value::Object([((*key).clone(), (*value).clone())].into_iter().collect());
        Profile::deserialize(&alone).is_err_and(|e| !e.to_string().starts_with("unknown field"))
    })?;
    let takes = match key.as_str() {
        "credential_process" => {
            "an argv list of strings (`[\"agentteam-runtime\", \"token\", \"issue\", …]`)"
        }
        "max_permission" => "one of `read_only`, `agent_mutation`, `destructive`",
        _ => "a string",
    };
    Some(format!("`{key}` must be {takes}"))
}

/// serde_json's words for a store problem when they name a field
/// (`unknown field `max_permision`, expected one of …`), never when they
/// may quote a value, which could be a token put in the wrong place: a
/// field's name clipped, and hidden if shaped like a token (one pasted
/// where a key belongs), so no message repeats a secret or a whole 200 KB
/// key.
fn field_words(error: &str) -> String {
    let what = error.rsplit_once(" at line ").map_or(error, |(w, _)| w);
    let names_a_field = ["unknown field", "missing field", "duplicate field"]
        .iter()
        .any(|start| what.starts_with(start));
    if names_a_field {
        crate::text::clip(&crate::redact::secrets(what), 200).into_owned()
    } else {
        "malformed".to_string()
    }
}

pub struct CredentialStore {
    dir: PathBuf,
}

impl CredentialStore {
    /// `$AGENTTEAM_CONFIG_DIR`, else the platform config dir.
    pub fn locate() -> Result<CredentialStore, Failure> {
        if let Some(dir) = std::env::var_os(env_vars::CONFIG_DIR.name).filter(|d| !d.is_empty()) {
            return Ok(CredentialStore::at(PathBuf::from(dir)));
        }
        directories::ProjectDirs::from("dev", "agentteam", "agentteam")
            .map(|dirs| CredentialStore::at(dirs.config_dir().to_path_buf()))
            .ok_or_else(|| {
                Failure::new(
                    code::CREDENTIALS_MISSING,
                    "No home directory to keep credentials in; set AGENTTEAM_CONFIG_DIR.",
                )
            })
    }

    pub fn at(dir: PathBuf) -> CredentialStore {
        CredentialStore { dir }
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join(FILE_NAME)
    }

    /// Reads the store; a missing file is an empty store.
    ///
    /// As ssh does with keys, the directory and file must belong to the
    /// effective user (root included: root does not read another user's
    /// store, nor run its credential process), the directory must not be
    /// writable by group or others, and the file must be a regular file
    /// that only its owner can read.
    /// The file the store's bytes are in: `credentials.json`, or the file it
    /// is a symlink to (a dotfiles manager's), whose directory must then be
    /// as private as the config directory. A link to nothing is refused,
    /// not replaced by a file of its own.
    fn target(&self) -> Result<PathBuf, Failure> {
        let path = self.path();
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = fs::canonicalize(&path).map_err(|e| {
                    invalid(format!(
                        "The credential store {} is a symlink to a file that cannot be read ({e}); create that file (mode 0600) or remove the link.",
                        path.display()
                    ))
                })?;
                if let Some(dir) = target.parent() {
                    check_dir(dir)?;
                }
                Ok(target)
            }
            _ => Ok(path),
        }
    }

    pub fn load(&self) -> Result<StoreFile, Failure> {
        let path = self.target()?;
        // O_NONBLOCK: opening a FIFO planted in its place returns at once
        // (and is refused below) instead of waiting for a writer.
        let mut file = match OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&path)
        {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                check_dir(&self.dir)?;
                return Ok(StoreFile::default());
            }
            Err(e) => {
                return Err(invalid(format!(
                    "Cannot read the credential store {}: {e}.",
                    path.display()
                )));
            }
        };
        check_dir(&self.dir)?;
        let meta = file
            .metadata()
            .map_err(|e| invalid(format!("Cannot stat {}: {e}.", path.display())))?;
        if !meta.file_type().is_file() {
            return Err(invalid(format!(
                "The credential store {} is not a regular file; remove it and log in again.",
                path.display()
            )));
        }
        check_owner(&path, "file", &meta)?;
        if meta.mode() & 0o077 != 0 {
            return Err(insecure(&path, "file", meta.mode()));
        }
        let too_large = || {
            invalid(format!(
                "The credential store {} is over {MAX_STORE_WORDS}, more than a store of profiles ever needs; is it the right file? Repair it, or remove it and log in again.",
                path.display()
            ))
        };
        if meta.len() > MAX_STORE_BYTES {
            return Err(too_large());
        }
        let mut text = String::new();
        // Bounded again: the file may have grown since it was looked at.
        (&mut file)
            .take(MAX_STORE_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(|e| {
                invalid(format!(
                    "Cannot read the credential store {}: {e}.",
                    path.display()
                ))
            })?;
        if text.len() as u64 > MAX_STORE_BYTES {
            return Err(too_large());
        }
        let bad = |why: String| {
            invalid(format!(
                "The credential store {} is not valid ({why}); repair it or remove it and log in again.",
                path.display(),
            ))
        };
        // An array would read as a struct (serde takes its fields in order):
        // a store is an object, or nothing this version can use.
        if !text.trim_start().starts_with('{') {
            return Err(bad("it must be one JSON object".into()));
        }
        // A key given twice, anywhere (a profile kept as written too), is
        // a store no reader may read two ways.
        if let Err(crate::json::Error::DuplicateKey { key, line, column }) =
            crate::json::from_str(&text)
        {
            return Err(bad(format!(
                "{}, at line {line}, column {column}",
                field_words(&format!("duplicate field `{key}`"))
            )));
        }
        serde_json::from_str(&text).map_err(|e| {
            bad(format!(
                "{}, at line {}, column {}",
                field_words(&e.to_string()),
                e.line(),
                e.column()
            ))
        })
    }

    /// Read-modify-write under an exclusive lock, replaced atomically.
    pub fn update<T>(
        &self,
        change: impl FnOnce(&mut StoreFile) -> Result<T, Failure>,
    ) -> Result<T, Failure> {
        let (_lock, mut store) = self.locked()?;
        let result = change(&mut store)?;
        self.write(&store)?;
        Ok(result)
    }

    /// Whether [`Self::update`] could write the store now, found without
    /// changing anything, not even making the directory or its lock file:
    /// a directory that exists is checked as a write would check it, the
    /// store read, and a temp file made (and removed) where the store would
    /// be; a missing one is judged by the nearest directory above it that
    /// exists, which must let a directory be made in it. For a command that
    /// writes the store last, after work it would not leave half-done
    /// (`agentteam-runtime quickstart`), and that must leave nothing behind
    /// when that work is refused.
    pub fn check_writable(&self) -> Result<(), Failure> {
        let cannot = |path: &Path, e: std::io::Error| {
            invalid(format!(
                "Cannot write the credential store {}: {e}.",
                path.display()
            ))
        };
        // A file made and removed at once.
        let probe = |at: PathBuf| {
            let made = create_private(&at);
            let _ = fs::remove_file(&at);
            made.map(drop)
        };
        let pid = std::process::id();
        if fs::symlink_metadata(&self.dir).is_ok() {
            if !self.dir.is_dir() {
                return Err(invalid(format!(
                    "Cannot create {}: it is a file, not a directory.",
                    self.dir.display()
                )));
            }
            check_dir(&self.dir)?;
            self.load()?;
            let path = self.target()?;
            // A lock there must open as a write's would (a directory of that
            // name cannot); one not made yet is made by the write.
            let lock_path = lock_of(&path);
            if fs::symlink_metadata(&lock_path).is_ok() {
                OpenOptions::new()
                    .write(true)
                    .open(&lock_path)
                    .map_err(|e| invalid(format!("Cannot open {}: {e}.", lock_path.display())))?;
            }
            return probe(sibling(&path, ".", &format!(".{pid}.probe")))
                .map_err(|e| cannot(&path, e));
        }
        let mut above = self.dir.parent();
        while let Some(dir) = above {
            // A relative directory's parent is the working directory.
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            if fs::symlink_metadata(dir).is_ok() {
                if !dir.is_dir() {
                    return Err(invalid(format!(
                        "Cannot create {}: {} is a file, not a directory.",
                        self.dir.display(),
                        dir.display()
                    )));
                }
                return probe(dir.join(format!(".agentteam.{pid}.probe")))
                    .map_err(|e| cannot(&self.path(), e));
            }
            above = dir.parent();
        }
        Ok(())
    }

    /// The directory made (0700) or checked, the store's lock taken (held
    /// while the returned file lives), and the store read.
    fn locked(&self) -> Result<(File, StoreFile), Failure> {
        // Created 0700 when missing; an existing directory is never chmodded
        // (it is the user's, named in AGENTTEAM_CONFIG_DIR, and may be shared
        // on purpose): one that is not private enough is refused instead.
        fs::DirBuilder::new()
            .recursive(true)
            .mode(DIR_MODE)
            .create(&self.dir)
            .map_err(|e| {
                let why = if self.dir.exists() && !self.dir.is_dir() {
                    "it is a file, not a directory".to_string()
                } else {
                    e.to_string()
                };
                invalid(format!("Cannot create {}: {why}.", self.dir.display()))
            })?;
        check_dir(&self.dir)?;
        // Beside the file the bytes are in, not the link to it: every config
        // directory whose store is one file (a dotfiles manager's link, or
        // that file's own directory) takes one lock.
        let lock_path = lock_of(&self.target()?);
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(FILE_MODE)
            .open(&lock_path)
            .map_err(|e| invalid(format!("Cannot open {}: {e}.", lock_path.display())))?;
        lock.lock()
            .map_err(|e| invalid(format!("Cannot lock the credential store: {e}.")))?;
        let store = self.load()?;
        Ok((lock, store))
    }

    /// Writes `store` whole or not at all: a temp file beside the store,
    /// then a rename over it. A symlinked store (a dotfiles manager's) is
    /// kept: the file it names is the one replaced ([`Self::target`]).
    fn write(&self, store: &StoreFile) -> Result<(), Failure> {
        let path = self.target()?;
        let dir = path.parent().unwrap_or(&self.dir).to_path_buf();
        remove_stale_copies(&path);
        let tmp = sibling(&path, ".", &format!(".{}.tmp", std::process::id()));
        let mut bytes = serde_json::to_vec_pretty(store).expect("the store serialises");
        bytes.push(b'\n');
        if bytes.len() as u64 > MAX_STORE_BYTES {
            return Err(invalid(format!(
                "Not written: the credential store {} would be over {MAX_STORE_WORDS}; remove profiles no longer used (`agentteam auth logout --profile NAME`) first.",
                path.display()
            )));
        }
        let written = (|| -> std::io::Result<()> {
            let mut file = create_private(&tmp)?;
            file.write_all(&bytes)?;
            file.sync_all()?;
            fs::rename(&tmp, &path)?;
            File::open(&dir)?.sync_all()
        })();
        written.map_err(|e| {
            let _ = fs::remove_file(&tmp);
            invalid(format!(
                "Cannot write the credential store {}: {e}.",
                path.display()
            ))
        })
    }
}

/// The lock of the store whose bytes are in `store`: beside that file.
fn lock_of(store: &Path) -> PathBuf {
    sibling(store, "", ".lock")
}

/// `path`'s file name between `before` and `after`, in `path`'s directory.
fn sibling(path: &Path, before: &str, after: &str) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| FILE_NAME.into(), |n| n.to_string_lossy());
    path.with_file_name(format!("{before}{name}{after}"))
}

/// Removes the temp copies of the store at `path` that a run stopped
/// mid-write left (SIGTERM or SIGKILL between the temp file and its
/// rename). Called under the store's lock, which every writer holds, so
/// none of them is being written: each is a whole copy of an older store,
/// tokens included, that a logout would otherwise leave on disk.
fn remove_stale_copies(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return;
    };
    let prefix = format!(".{}.", name.to_string_lossy());
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let file = file.to_string_lossy();
        let ours = file
            .strip_prefix(&prefix)
            .and_then(|rest| rest.rsplit_once('.'))
            .is_some_and(|(pid, kind)| {
                !pid.is_empty()
                    && pid.bytes().all(|b| b.is_ascii_digit())
                    && matches!(kind, "tmp" | "probe")
            });
        if ours {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// A new file at `path`, made 0600 here: a stale one of the same name (a
/// crashed run of a reused pid) is removed first, since it would keep its
/// own mode.
fn create_private(path: &Path) -> std::io::Result<File> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    OpenOptions::new()
        .create_new(true)
        .write(true)
        .mode(FILE_MODE)
        .open(path)
}

/// Which profile a command uses: `--profile`, else `$AGENTTEAM_PROFILE`,
/// else the store's default, else `default`.
pub fn profile_name(flag: Option<&str>, store: &StoreFile) -> String {
    flag.map(str::to_string)
        .or_else(|| {
            std::env::var(env_vars::PROFILE.name)
                .ok()
                .filter(|p| !p.is_empty())
        })
        .or_else(|| store.default_profile.clone())
        .unwrap_or_else(|| DEFAULT_PROFILE.to_string())
}

/// `credentials_missing` for profile `name`, which `store` does not hold:
/// with profiles there, those nearest the name as candidates (a slip of
/// `--profile` is fixed by naming the profile meant, not by a new login);
/// with none, how to make one.
fn missing_profile(name: &str, store: &StoreFile, path: &std::path::Path) -> Failure {
    // Caller input, repeated: bounded, a word that could be a token hidden,
    // and quoted for a shell. The nearest profiles are found by the name as
    // typed.
    let typed = name;
    let redacted = crate::redact::tokens(name);
    let shown = crate::text::clip(&redacted, crate::text::ECHO_LIMIT);
    let make = if redacted == typed && shown.as_ref() == typed {
        profile_flag(typed)
    } else {
        "--profile NAME".to_string()
    };
    let name = shown.as_ref();
    if store.profiles.is_empty() {
        return Failure::new(
            code::CREDENTIALS_MISSING,
            format!(
                "No profile `{name}` in {}; run `agentteam {make} auth login`, or `agentteam-runtime quickstart {make}` for a local server and profile.",
                path.display()
            ),
        );
    }
    let mut nearest: Vec<(usize, &String)> = store
        .profiles
        .keys()
        .map(|p| (crate::nearest::edit_distance(typed, p), p))
        .collect();
    nearest.sort();
    let names: Vec<&String> = nearest
        .iter()
        .map(|(_, p)| *p)
        .take(crate::error::MAX_CANDIDATES)
        .collect();
    // A profile is an agent: another one than a typo meant would act as
    // someone else, so one is proposed only when the name is a slip of it.
    let select = if crate::nearest::is_typo_of(typed, names[0]) {
        format!("select it with `{}`", profile_flag(names[0]))
    } else {
        "none is near that name, and each acts as its own agent: select the one for this agent by name".to_string()
    };
    Failure::new(
        code::CREDENTIALS_MISSING,
        format!(
            "No profile `{name}`; the profiles are in candidates, nearest first: {select}, or make `{name}` with `agentteam {make} auth login --api-url … --workspace … --agent … --token-stdin`.",
        ),
    )
    .candidates("profile", names.into_iter().map(|p| serde_json::Value::from(p.as_str())))
}

/// `--profile NAME` as a shell takes it back: quoted when it must be, and
/// `--profile=NAME` for a name that starts with `-` (which the parser would
/// take for a flag).
pub fn profile_flag(name: &str) -> String {
    let quoted = shlex::try_quote(name).map_or_else(|_| "NAME".into(), |q| q.into_owned());
    if name.starts_with('-') {
        format!("--profile={quoted}")
    } else {
        format!("--profile {quoted}")
    }
}

/// What a credential process prints.
#[derive(Debug, Deserialize)]
struct ProcessOutput {
    token: String,
    #[serde(default)]
    expires_at: Option<String>,
}

/// A profile's `api_url`: an absolute http(s) URL without credentials, a
/// query or a fragment, written without its trailing `/`.
pub fn check_api_url(text: &str) -> Result<String, Failure> {
    let bad = |why: &str| {
        Failure::new(code::INVALID_INPUT, format!("--api-url {why}.")).field("api_url", why)
    };
    let url =
        reqwest::Url::parse(text.trim()).map_err(|_| bad("must be an absolute http(s) URL"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(bad("must be an absolute http(s) URL"));
    }
    if !url.username().is_empty()
        || url.password().is_some()
        || url.query().is_some()
        || url.fragment().is_some()
    {
        return Err(bad("must not carry credentials, a query or a fragment"));
    }
    let base = url.as_str().trim_end_matches('/');
    // The API's own prefix, which every request adds (`/api/v1/workspaces/…`):
    // kept, every call would go to `…/api/v1/api/v1/…` and be answered 404.
    if let Some(root) = base.strip_suffix("/api/v1") {
        return Err(bad(&format!(
            "is the runtime's base URL, without `/api/v1` (agentteam adds it): `{root}`"
        )));
    }
    Ok(base.to_string())
}

/// Whether `url` names this machine's loopback: `localhost`, or a loopback
/// address. Not `localhost.`: a name with its root dot is not looked up in
/// /etc/hosts by every resolver, and may be asked of the network's DNS.
pub fn is_loopback(url: &reqwest::Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.to_canonical().is_loopback())
}

/// A warning for an `api_url` that sends the token unencrypted over a
/// network: plain `http://` to a host other than this machine's loopback.
/// Said once, when a profile is saved (`auth login`, `agentteam-runtime
/// quickstart`): the runtime has no TLS of its own and belongs behind a
/// TLS proxy (docs/security.md).
pub fn cleartext_warning(api_url: &str) -> Option<String> {
    let url = reqwest::Url::parse(api_url).ok()?;
    (url.scheme() == "http" && !is_loopback(&url)).then(|| {
        format!(
            "{api_url} is plain http to another host: the token will cross the network unencrypted; use https (a TLS proxy in front of the runtime)."
        )
    })
}

/// The most a credential process may print on stdout.
const MAX_PROCESS_OUTPUT: usize = 64 * 1024;

/// The process group of the credential process running now (0: none). Its
/// group is its own, so a Ctrl-C at a terminal, which signals the
/// foreground group, never reaches it, and a CLI stopped by a signal would
/// leave it running: [`stop_group_on_signals`] kills it first.
static RUNNING_GROUP: AtomicI32 = AtomicI32::new(0);

/// Marks `group` as the running credential process's for its lifetime.
struct RunningGroup;

impl RunningGroup {
    fn enter(group: i32) -> RunningGroup {
        stop_group_on_signals();
        RUNNING_GROUP.store(group, Ordering::SeqCst);
        RunningGroup
    }
}

impl Drop for RunningGroup {
    fn drop(&mut self) {
        RUNNING_GROUP.store(0, Ordering::SeqCst);
    }
}

/// Makes SIGINT, SIGTERM and SIGHUP kill the running credential process's
/// group before they end the CLI as they would have (their default action,
/// so the exit status still names the signal). A signal the CLI was started
/// ignoring (`nohup`, a background job) stays ignored.
fn stop_group_on_signals() {
    extern "C" fn stop_group_then_die(signal: libc::c_int) {
        let group = RUNNING_GROUP.load(Ordering::SeqCst);
        // SAFETY: kill(2), signal(2) and raise(3) are async-signal-safe and
        // touch no memory of ours.
        unsafe {
            if group > 0 {
                libc::kill(-group, libc::SIGKILL);
            }
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            let handler = stop_group_then_die as extern "C" fn(libc::c_int) as libc::sighandler_t;
            // SAFETY: installs a handler that only makes async-signal-safe
            // calls; an ignored signal gets its disposition back at once.
            unsafe {
                if libc::signal(signal, handler) == libc::SIG_IGN {
                    libc::signal(signal, libc::SIG_IGN);
                }
            }
        }
    });
}

/// Runs `argv` and returns the token it prints, or `credential_process_failed`.
/// Neither its stdout (the token) nor its stderr reaches ours: a process
/// may print anything there, its token included. A failure quotes the last
/// line of its stderr, with every word that could be a secret redacted
/// (`redact::secrets`).
///
/// `timeout` covers the whole run: the process's exit *and* the end of its
/// stdout, which a background child it forked may hold open after it exits.
/// On expiry the process's whole group is killed, so neither the process nor
/// anything it started outlives the CLI's wait; so is it when a signal
/// stops the CLI meanwhile (`RUNNING_GROUP`).
pub fn run_credential_process(
    argv: &[String],
    timeout: Duration,
) -> Result<(Secret, Option<String>), Failure> {
    let fail = |why: String| {
        Failure::new(
            code::CREDENTIAL_PROCESS_FAILED,
            format!("The credential process {why}."),
        )
    };
    let (program, args) = argv.split_first().ok_or_else(|| fail("is empty".into()))?;
    let deadline = Instant::now() + timeout;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group (pgid = its pid), so a timeout kills whatever
        // it started too, even after it has exited itself.
        .process_group(0)
        .spawn()
        .map_err(|e| fail(format!("`{program}` could not be started: {e}")))?;
    let group = child.id() as i32;
    let kill_group = || {
        // SAFETY: kill(2) on the group we created; no memory is touched.
        unsafe { libc::kill(-group, libc::SIGKILL) };
    };
    let _running = RunningGroup::enter(group);
    // Read to its end, so that a process never blocks on a full pipe; the
    // last 4 KiB are kept, for the line a failure quotes.
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let (said, last_words) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut tail: Vec<u8> = Vec::new();
        let mut chunk = [0u8; 4096];
        while let Ok(n) = stderr.read(&mut chunk) {
            if n == 0 {
                break;
            }
            tail.extend_from_slice(&chunk[..n]);
            if tail.len() > 4096 {
                tail.drain(..tail.len() - 4096);
            }
        }
        let _ = said.send(tail);
    });
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let (sender, output) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = (&mut stdout)
            .take(MAX_PROCESS_OUTPUT as u64 + 1)
            .read_to_end(&mut buf);
        let _ = sender.send(buf);
    });
    let mut status = None;
    let mut out = None;
    while status.is_none() || out.is_none() {
        if status.is_none() {
            match child.try_wait() {
                Ok(found) => status = found,
                Err(e) => {
                    kill_group();
                    let _ = child.wait();
                    return Err(fail(format!("could not be waited for: {e}")));
                }
            }
        }
        if out.is_none() {
            match output.recv_timeout(Duration::from_millis(5)) {
                Ok(bytes) if bytes.len() > MAX_PROCESS_OUTPUT => {
                    // Its stdout is no longer read: it would block, or die
                    // of SIGPIPE and be reported by that status.
                    kill_group();
                    let _ = child.wait();
                    return Err(fail(format!(
                        "printed more than {} KiB on stdout (a token document is a few hundred bytes)",
                        MAX_PROCESS_OUTPUT / 1024
                    )));
                }
                Ok(bytes) => out = Some(bytes),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => out = Some(Vec::new()),
            }
        } else {
            std::thread::sleep(Duration::from_millis(5));
        }
        if (status.is_none() || out.is_none()) && Instant::now() >= deadline {
            // The group outlives its leader: this reaches a background child
            // holding stdout after the process itself has exited.
            kill_group();
            let why = if status.is_none() {
                let _ = child.wait();
                ""
            } else {
                "; it exited, but something it started still held its stdout"
            };
            return Err(fail(format!(
                "did not finish within {} s{why}",
                timeout.as_secs()
            )));
        }
    }
    let (status, out) = (status.expect("waited"), out.expect("read"));
    if !status.success() {
        let stderr = last_words
            .recv_timeout(Duration::from_millis(100))
            .unwrap_or_default();
        let secrets = secret_arguments(args);
        let quoted = last_line(&stderr, &secrets)
            .map_or(String::new(), |line| format!("; its stderr ended: {line}"));
        return Err(process_error(status, &out, &secrets)
            .unwrap_or_else(|| fail(format!("exited with {status}{quoted}"))));
    }
    let parsed: ProcessOutput = serde_json::from_slice(&out)
        .map_err(|_| fail("did not print a JSON object with a `token`".into()))?;
    let token = parsed.token.trim();
    if token.is_empty() {
        return Err(fail("printed an empty token".into()));
    }
    // A token is sent as a header: one word of printable ASCII. Anything
    // else is the process's fault, not a network error to retry.
    if token.len() > MAX_PROCESS_TOKEN_BYTES || !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(fail(format!(
            "printed a malformed token (a token is one word of printable ASCII, at most {MAX_PROCESS_TOKEN_BYTES} bytes)"
        )));
    }
    // An expiry the CLI cannot read would never tell it to run the process
    // again before the token is refused; one already past would be refused
    // by the server, and would make every later command run the process
    // again (botocore refuses such credentials the same way).
    if let Some(at) = &parsed.expires_at {
        let Ok(time) =
            time::OffsetDateTime::parse(at, &time::format_description::well_known::Rfc3339)
        else {
            return Err(fail(
                "printed an `expires_at` that is not an RFC3339 time (e.g. 2026-01-31T12:00:00Z)"
                    .into(),
            ));
        };
        if time <= time::OffsetDateTime::now_utc() {
            return Err(fail(format!(
                "printed a token that expired at {}; it must print one still valid",
                crate::text::clip(at, 40)
            )));
        }
    }
    Ok((
        Secret::new(parsed.token.trim().to_string()),
        parsed.expires_at,
    ))
}

/// The last non-blank line of a process's stderr, its secrets redacted
/// ([`crate::redact::secrets`], and the process's own [`secret_arguments`])
/// before it is cut to 200 characters, so that no cut leaves part of one.
fn last_line(stderr: &[u8], secrets: &[&str]) -> Option<String> {
    let text = String::from_utf8_lossy(stderr);
    let line = text.lines().map(str::trim).rfind(|line| !line.is_empty())?;
    Some(crate::text::clip(&without_secrets(line, secrets), 200).into_owned())
}

/// The arguments of a credential process that a flag's name says are
/// secret (`--password hunter2`, `--api-key=s3cr3t`, `-token x`). `auth
/// status` shows none of the process's arguments; these, known exactly,
/// are also taken out of the process's own words when a failure quotes
/// them (a process that echoes its command line).
fn secret_arguments(args: &[String]) -> Vec<&str> {
    const SECRET_WORDS: [&str; 6] = ["pass", "secret", "token", "key", "auth", "cred"];
    let secret_name = |name: &str| {
        let name = name.trim_start_matches('-').to_ascii_lowercase();
        SECRET_WORDS.iter().any(|word| name.contains(word))
    };
    let mut secrets = Vec::new();
    let mut after_secret_flag = false;
    for arg in args {
        if after_secret_flag && !arg.is_empty() {
            secrets.push(arg.as_str());
        }
        after_secret_flag = false;
        if !arg.starts_with('-') {
            continue;
        }
        match arg.split_once('=') {
            Some((name, value)) if secret_name(name) && !value.is_empty() => secrets.push(value),
            Some(_) => {}
            None => after_secret_flag = secret_name(arg),
        }
    }
    secrets
}

/// `text` with [`crate::redact::secrets`]' patterns and each of `secrets`
/// replaced, longest first (so no part of a longer one is left).
fn without_secrets(text: &str, secrets: &[&str]) -> String {
    let mut text = crate::redact::secrets(text);
    let mut secrets = secrets.to_vec();
    secrets.sort_by_key(|secret| std::cmp::Reverse(secret.len()));
    for secret in secrets {
        text = text.replace(secret, "<redacted>");
    }
    text
}

/// The failure a process that exited unsuccessfully describes on stdout as
/// an error document, as `agentteam-runtime token issue` does: passing
/// (`retryable: true`, its store unavailable, say) or not, in its words.
fn process_error(
    status: std::process::ExitStatus,
    out: &[u8],
    secrets: &[&str],
) -> Option<Failure> {
    let doc: serde_json::Value = serde_json::from_slice(out).ok()?;
    let error = doc.get("error")?;
    let said = error
        .get("message")
        .and_then(serde_json::Value::as_str)
        // Redacted before it is cut, as the stderr line is: the message is
        // the process's own words, which may hold a token.
        .map(|message| crate::text::clip(&without_secrets(message, secrets), 300).into_owned());
    let said = said.map_or(String::new(), |message| {
        format!(": {}", message.trim_end().trim_end_matches('.'))
    });
    Some(
        if error.get("retryable") == Some(&serde_json::Value::Bool(true)) {
            Failure::new(
                code::CREDENTIAL_PROCESS_UNAVAILABLE,
                format!("The credential process could not issue a token now{said}; retry shortly."),
            )
        } else {
            Failure::new(
                code::CREDENTIAL_PROCESS_FAILED,
                format!("The credential process exited with {status}{said}."),
            )
        },
    )
}

/// The longest token a credential process may print, in bytes.
const MAX_PROCESS_TOKEN_BYTES: usize = 4096;

/// The store's directory: the effective user's, and writable by no one else
/// (who could otherwise swap the file). One others can only list is fine: it
/// reveals nothing the 0600 file does not protect.
fn check_dir(dir: &Path) -> Result<(), Failure> {
    let meta = match fs::metadata(dir) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(invalid(format!("Cannot stat {}: {e}.", dir.display()))),
    };
    if !meta.is_dir() {
        return Err(invalid(format!(
            "The credential store directory {} is not a directory; set AGENTTEAM_CONFIG_DIR to a directory of your own.",
            dir.display()
        )));
    }
    check_owner(dir, "directory", &meta)?;
    if meta.mode() & 0o022 != 0 {
        return Err(Failure::new(
            code::CREDENTIAL_STORE_INSECURE,
            format!(
                "The credential store directory {} has mode {:o}: group or others can write to it and swap the store. It is not changed for you; point AGENTTEAM_CONFIG_DIR at a private directory, or, if it is yours alone, run `chmod 700 {}`.",
                dir.display(),
                meta.mode() & 0o7777,
                dir.display()
            ),
        ));
    }
    Ok(())
}

/// The effective user must own `path`, as ssh requires of keys.
fn check_owner(path: &Path, what: &str, meta: &fs::Metadata) -> Result<(), Failure> {
    // SAFETY: geteuid(2) has no preconditions and touches no memory.
    let me = unsafe { libc::geteuid() };
    if meta.uid() == me {
        return Ok(());
    }
    Err(Failure::new(
        code::CREDENTIAL_STORE_INSECURE,
        format!(
            "The credential store {what} {} belongs to uid {}, not to you (uid {me}); a store is used only by its owner. Log in with a config directory of your own (AGENTTEAM_CONFIG_DIR), or have its owner run the command.",
            path.display(),
            meta.uid()
        ),
    ))
}

fn insecure(path: &Path, what: &str, mode: u32) -> Failure {
    let fix = if what == "file" { FILE_MODE } else { DIR_MODE };
    Failure::new(
        code::CREDENTIAL_STORE_INSECURE,
        format!(
            "The credential store {what} {} has mode {:o}, open to group or others; run `chmod {fix:o} {}` and check who could have read or changed it.",
            path.display(),
            mode & 0o777,
            path.display()
        ),
    )
}

fn invalid(message: String) -> Failure {
    Failure::new(code::CREDENTIAL_STORE_INVALID, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_api_url_is_the_runtimes_base_without_the_apis_prefix() {
        assert_eq!(
            check_api_url("https://tasks.example.com/team/").unwrap(),
            "https://tasks.example.com/team"
        );
        for given in [
            "http://127.0.0.1:8787/api/v1",
            "http://127.0.0.1:8787/api/v1/",
        ] {
            let failure = check_api_url(given).unwrap_err();
            assert_eq!(
                failure.field_errors["api_url"],
                "is the runtime's base URL, without `/api/v1` (agentteam adds it): `http://127.0.0.1:8787`",
                "{given}"
            );
        }
    }

    #[test]
    fn plain_http_to_another_host_is_warned_about() {
        for url in [
            "http://10.0.0.5:8787",
            "http://tasks.example.com",
            // Resolved by DNS where /etc/hosts does not know the root dot.
            "http://localhost.:8787",
            "http://LOCALHOST.:8787",
        ] {
            assert!(cleartext_warning(url).is_some(), "{url}");
        }
        for url in [
            "http://127.0.0.1:8787",
            "http://127.0.0.1.:8787",
            "http://localhost:8787",
            "http://LocalHost:8787",
            "http://[::1]:8787",
            "http://[::ffff:127.0.0.1]:8787",
            "https://tasks.example.com",
        ] {
            assert_eq!(cleartext_warning(url), None, "{url}");
        }
    }

    #[test]
    fn a_failing_process_is_quoted_by_its_last_line_without_secrets() {
        assert_eq!(
            last_line(b"first\n  second line  \n\n", &[]).as_deref(),
            Some("second line")
        );
        assert_eq!(last_line(b" \n", &[]), None);
        // Redacted before the cut: no part of a token survives it.
        let long = format!("{} at_SECRETabcdefghijk1234567890XYZ", "x".repeat(190));
        let quoted = last_line(long.as_bytes(), &[]).unwrap();
        assert!(
            !quoted.contains("SECRE") && !quoted.contains("at_"),
            "{quoted}"
        );
    }

    /// A process that echoes its command line is quoted without the
    /// arguments its flags' names say are secret, which `auth status`
    /// never shows either; the others stay, to say what failed.
    #[test]
    fn a_failing_process_is_quoted_without_its_secret_arguments() {
        let args: Vec<String> = [
            "--db",
            "/srv/store.db",
            "--password",
            "hunter2",
            "--api-key=s3cr3t",
            "-token",
            "t0k",
            "--passphrase=",
        ]
        .map(String::from)
        .to_vec();
        let secrets = secret_arguments(&args);
        assert_eq!(secrets, ["hunter2", "s3cr3t", "t0k"]);
        let line = b"failing with args --db /srv/store.db --password hunter2 --api-key=s3cr3t -token t0k\n";
        let quoted = last_line(line, &secrets).unwrap();
        // (`--api-key=…` is the redaction's own pattern, taken whole.)
        assert_eq!(
            quoted,
            "failing with args --db /srv/store.db --password <redacted> <redacted> -token <redacted>"
        );
        let out = br#"{"error": {"message": "bad password hunter2", "retryable": false}}"#;
        let status = std::process::Command::new("false").status().unwrap();
        let failure = process_error(status, out, &secrets).unwrap();
        assert!(!failure.message.contains("hunter2"), "{}", failure.message);
    }

    /// A mistyped `--profile` is matched by the name as typed (shown, or
    /// redacted when token-shaped), and every command the message gives
    /// can be pasted: quoted, `--profile=` before a `-`.
    #[test]
    fn a_missing_profile_names_the_nearest_by_what_was_typed() {
        let mut store = StoreFile::default();
        for name in ["default", "staging-2024-agent-a", "-x", "my prof"] {
            store.profiles.insert(name.into(), profile("a"));
        }
        let path = std::path::Path::new("/c/credentials.json");
        let f = missing_profile("staging-2024-agent-b", &store, path);
        let first = &f.candidates.as_ref().unwrap()[0];
        assert_eq!(first.value, "staging-2024-agent-a", "{f:?}");
        assert!(
            f.message
                .contains("select it with `--profile staging-2024-agent-a`"),
            "{}",
            f.message
        );
        assert!(
            f.message
                .contains("agentteam --profile staging-2024-agent-b auth login"),
            "{}",
            f.message
        );
        // A token typed as the name is ranked as typed, and not shown.
        store
            .profiles
            .insert("at_6aEU56b_EptJ67Q_LS32i4Ya".into(), profile("a"));
        let f = missing_profile("at_6aEU56b_EptJ67Q_LS32i4Yb", &store, path);
        assert_eq!(
            f.candidates.as_ref().unwrap()[0].value,
            "at_6aEU56b_EptJ67Q_LS32i4Ya"
        );
        assert!(!f.message.contains("LS32i4Yb"), "{}", f.message);
        assert!(f.message.contains("agentteam --profile NAME auth login"));
        let f = missing_profile("-y", &store, path);
        assert!(f.message.contains("`--profile=-x`"), "{}", f.message);
        assert!(f.message.contains("agentteam --profile=-y auth login"));
        let f = missing_profile("my pro", &store, path);
        assert!(f.message.contains("`--profile 'my prof'`"), "{}", f.message);
        assert!(
            f.message
                .contains("agentteam --profile 'my pro' auth login")
        );
        // A name that is no slip of any profile proposes none: each is an
        // agent, and another one would act as someone else.
        let mut two = StoreFile::default();
        two.profiles.insert("default".into(), profile("a"));
        two.profiles.insert("peer".into(), profile("b"));
        let f = missing_profile("demo", &two, path);
        assert!(!f.message.contains("`--profile peer`"), "{}", f.message);
        assert!(
            f.message.contains("none is near that name"),
            "{}",
            f.message
        );
        assert_eq!(f.candidate_list().len(), 2, "{f:?}");
    }

    /// A store in a private temp directory (kept while the first is).
    fn private_store() -> (tempfile::TempDir, CredentialStore) {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o700)).unwrap();
        let store = CredentialStore::at(dir.path().to_path_buf());
        (dir, store)
    }

    /// `text` as `store`'s file, private, as no login would write it.
    fn hand_written(store: &CredentialStore, text: &str) {
        use std::os::unix::fs::PermissionsExt;
        fs::write(store.path(), text).unwrap();
        fs::set_permissions(store.path(), fs::Permissions::from_mode(0o600)).unwrap();
    }

    fn profile(agent: &str) -> Profile {
        Profile {
            api_url: "http://127.0.0.1:1".into(),
            workspace_id: "ws".into(),
            agent_id: agent.into(),
            token: Some(Secret::new("secret-token".into())),
            token_expires_at: None,
            credential_process: None,
            max_permission: None,
        }
    }

    #[test]
    fn writes_private_files_atomically_and_reads_them_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = CredentialStore::at(dir.path().join("cfg"));
        store
            .update(|f| Ok(f.profiles.insert("a".into(), profile("ag1"))))
            .unwrap();
        assert_eq!(
            fs::metadata(dir.path().join("cfg")).unwrap().mode() & 0o777,
            0o700
        );
        assert_eq!(fs::metadata(store.path()).unwrap().mode() & 0o777, 0o600);
        assert_eq!(store.load().unwrap().profiles["a"], profile("ag1"));
    }

    #[test]
    fn a_stale_temp_file_lends_the_store_neither_its_mode_nor_its_bytes() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let store = CredentialStore::at(dir.path().to_path_buf());
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o700)).unwrap();
        // Left by a crashed run whose pid is ours now.
        let tmp = dir
            .path()
            .join(format!(".{FILE_NAME}.{}.tmp", std::process::id()));
        fs::write(&tmp, "x".repeat(10_000)).unwrap();
        fs::set_permissions(&tmp, fs::Permissions::from_mode(0o644)).unwrap();
        store
            .update(|f| Ok(f.profiles.insert("a".into(), profile("ag1"))))
            .unwrap();
        assert_eq!(fs::metadata(store.path()).unwrap().mode() & 0o777, 0o600);
        assert_eq!(store.load().unwrap().profiles["a"], profile("ag1"));
    }

    #[test]
    fn a_symlinked_store_is_written_through_its_link() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let dotfiles = dir.path().join("dotfiles");
        let cfg = dir.path().join("cfg");
        for d in [&dotfiles, &cfg] {
            fs::create_dir(d).unwrap();
            fs::set_permissions(d, fs::Permissions::from_mode(0o700)).unwrap();
        }
        let real = dotfiles.join("credentials.json");
        fs::write(&real, "{}").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::symlink("../dotfiles/credentials.json", cfg.join(FILE_NAME)).unwrap();
        let store = CredentialStore::at(cfg.clone());
        store
            .update(|f| Ok(f.profiles.insert("a".into(), profile("ag1"))))
            .unwrap();
        let link = fs::symlink_metadata(store.path()).unwrap();
        assert!(link.file_type().is_symlink(), "the link was replaced");
        let written: StoreFile = serde_json::from_slice(&fs::read(&real).unwrap()).unwrap();
        assert_eq!(written.profiles["a"], profile("ag1"));
        assert_eq!(fs::metadata(&real).unwrap().mode() & 0o777, 0o600);
        // The directory it lives in is held to the config dir's rule.
        fs::set_permissions(&dotfiles, fs::Permissions::from_mode(0o777)).unwrap();
        assert_eq!(store.load().unwrap_err().code, "credential_store_insecure");
        let refused = store.update(|_| Ok(())).unwrap_err();
        assert_eq!(refused.code, "credential_store_insecure");
        fs::set_permissions(&dotfiles, fs::Permissions::from_mode(0o700)).unwrap();
        // A link to nothing is refused, never replaced by a file.
        fs::remove_file(&real).unwrap();
        let failure = store.update(|_| Ok(())).unwrap_err();
        assert!(failure.message.contains("symlink"), "{}", failure.message);
        assert!(
            fs::symlink_metadata(store.path())
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    #[test]
    fn an_unknown_field_or_a_non_object_is_refused_by_name() {
        let (_dir, store) = private_store();
        let write = |text: &str| hand_written(&store, text);
        // Why profile `p` is refused when selected.
        let refusal = || {
            store
                .load()
                .unwrap()
                .selected("p", &store.path())
                .unwrap_err()
        };
        // A misspelt cap would leave the profile uncapped if it were ignored.
        write(
            r#"{"profiles": {"p": {"api_url": "http://127.0.0.1:1", "workspace_id": "ws",
                "agent_id": "ag1", "token": "secret-token", "max_permision": "read_only"}}}"#,
        );
        // Refused when selected, by name; the store itself still loads.
        let failure = refusal();
        assert_eq!(failure.code, "credential_store_invalid");
        assert!(
            failure.message.contains("unknown field `max_permision`"),
            "{}",
            failure.message
        );
        assert!(
            !failure.message.contains("secret-token"),
            "{}",
            failure.message
        );
        // A field of another type is named, with what it takes, and its
        // value is never repeated.
        for (field, written, takes) in [
            (
                "credential_process",
                r#""/usr/bin/secret-helper""#,
                "an argv list of strings",
            ),
            ("token", "12345678901234567890", "a string"),
            ("max_permission", r#""root""#, "one of `read_only`"),
        ] {
            write(&format!(
                r#"{{"profiles": {{"p": {{"api_url": "http://127.0.0.1:1", "workspace_id": "ws",
                    "agent_id": "ag1", "{field}": {written}}}}}}}"#
            ));
            let failure = refusal();
            assert!(
                failure
                    .message
                    .contains(&format!("(`{field}` must be {takes}")),
                "{}",
                failure.message
            );
            assert!(
                !failure.message.contains(written.trim_matches('"')),
                "{}",
                failure.message
            );
        }
        // An API URL `auth login` would refuse (a password, a query) is
        // refused when read, and not repeated.
        for (url, says) in [
            (
                "http://admin:Sup3rS3cretPw@127.0.0.1:8658",
                "must not carry credentials",
            ),
            (
                "http://127.0.0.1:8658/?k=QuerySecret",
                "must not carry credentials, a query",
            ),
            ("http://127.0.0.1:8658/api/v1", "without `/api/v1`"),
        ] {
            write(&format!(
                r#"{{"profiles": {{"p": {{"api_url": "{url}", "workspace_id": "ws",
                    "agent_id": "ag1", "token": "secret-token"}}}}}}"#
            ));
            let failure = refusal();
            assert_eq!(failure.code, "credential_store_invalid");
            assert!(failure.message.contains(says), "{}", failure.message);
            for secret in ["Sup3rS3cretPw", "QuerySecret"] {
                assert!(!failure.message.contains(secret), "{}", failure.message);
            }
        }
        // Not an object: malformed, never an empty store to overwrite.
        for text in ["[]", "[1]", "null", "42"] {
            write(text);
            let failure = store.load().unwrap_err();
            assert_eq!(failure.code, "credential_store_invalid", "{text}");
            assert!(
                failure.message.contains("one JSON object"),
                "{}",
                failure.message
            );
        }
    }

    #[test]
    fn refuses_a_store_others_can_read() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let store = CredentialStore::at(dir.path().to_path_buf());
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o700)).unwrap();
        store
            .update(|f| Ok(f.profiles.insert("a".into(), profile("ag1"))))
            .unwrap();
        fs::set_permissions(store.path(), fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(store.load().unwrap_err().code, "credential_store_insecure");
    }

    #[test]
    fn an_existing_directory_is_never_chmodded() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let cfg = dir.path().join("cfg");
        fs::create_dir(&cfg).unwrap();
        // Listable by others is fine (the file is 0600) and left as it is.
        fs::set_permissions(&cfg, fs::Permissions::from_mode(0o755)).unwrap();
        let store = CredentialStore::at(cfg.clone());
        store
            .update(|f| Ok(f.profiles.insert("a".into(), profile("ag1"))))
            .unwrap();
        assert_eq!(fs::metadata(&cfg).unwrap().mode() & 0o7777, 0o755);
        // Writable by group or others (sticky or setgid alike): refused for
        // reading and writing, with the fix named, and not narrowed.
        for mode in [0o1777, 0o2775, 0o777] {
            fs::set_permissions(&cfg, fs::Permissions::from_mode(mode)).unwrap();
            let read = store.load().unwrap_err();
            assert_eq!(read.code, "credential_store_insecure", "{mode:o}");
            assert!(read.message.contains("chmod 700"), "{}", read.message);
            let write = store.update(|_| Ok(())).unwrap_err();
            assert_eq!(write.code, "credential_store_insecure", "{mode:o}");
            assert_eq!(fs::metadata(&cfg).unwrap().mode() & 0o7777, mode);
        }
    }

    #[test]
    fn a_fifo_in_place_of_the_store_is_refused_without_hanging() {
        let dir = tempfile::tempdir().unwrap();
        let store = CredentialStore::at(dir.path().to_path_buf());
        let path =
            std::ffi::CString::new(store.path().into_os_string().into_encoded_bytes()).unwrap();
        // SAFETY: mkfifo(3) with a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(store.load().map(|_| ()).unwrap_err().code);
        });
        let code = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("loading a FIFO store hangs");
        assert_eq!(code, "credential_store_invalid");
    }

    /// As root (the test machine): a store owned by another user is refused,
    /// directory or file, even to root.
    #[test]
    fn a_store_owned_by_another_user_is_refused_even_to_root() {
        // SAFETY: geteuid(2) has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: only root can give a file to another user");
            return;
        }
        let chown =
            |path: &Path, uid: u32| std::os::unix::fs::chown(path, Some(uid), None).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let cfg = dir.path().join("cfg");
        let store = CredentialStore::at(cfg.clone());
        store
            .update(|f| Ok(f.profiles.insert("a".into(), profile("ag1"))))
            .unwrap();
        chown(&store.path(), 65534);
        let err = store.load().unwrap_err();
        assert_eq!(err.code, "credential_store_insecure");
        assert!(err.message.contains("uid 65534"), "{}", err.message);
        chown(&store.path(), 0);
        chown(&cfg, 65534);
        assert_eq!(store.load().unwrap_err().code, "credential_store_insecure");
        assert_eq!(
            store.update(|_| Ok(())).unwrap_err().code,
            "credential_store_insecure"
        );
    }

    /// `n` threads at once, each adding profile `p{i}` through the store
    /// in the directory `dir_of(i)` names.
    fn add_profiles_at_once(n: usize, dir_of: impl Fn(usize) -> PathBuf) {
        let threads: Vec<_> = (0..n)
            .map(|i| {
                let path = dir_of(i);
                std::thread::spawn(move || {
                    CredentialStore::at(path)
                        .update(|f| Ok(f.profiles.insert(format!("p{i}"), profile("a"))))
                        .unwrap();
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
    }

    #[test]
    fn concurrent_updates_lose_no_profile() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cfg");
        add_profiles_at_once(16, |_| path.clone());
        assert_eq!(CredentialStore::at(path).load().unwrap().profiles.len(), 16);
    }

    /// A store reached through a link and from its own directory is one
    /// store: both take the lock beside the file, so writers through
    /// either lose no profile.
    #[test]
    fn writers_through_a_link_and_beside_its_file_share_one_lock() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let (dotfiles, cfg) = (dir.path().join("dotfiles"), dir.path().join("cfg"));
        for d in [&dotfiles, &cfg] {
            fs::create_dir(d).unwrap();
            fs::set_permissions(d, fs::Permissions::from_mode(0o700)).unwrap();
        }
        let real = dotfiles.join(FILE_NAME);
        fs::write(&real, "{}").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::symlink(&real, cfg.join(FILE_NAME)).unwrap();
        add_profiles_at_once(32, |i| if i % 2 == 0 { &cfg } else { &dotfiles }.clone());
        assert_eq!(
            CredentialStore::at(cfg.clone())
                .load()
                .unwrap()
                .profiles
                .len(),
            32
        );
        assert!(dotfiles.join(format!("{FILE_NAME}.lock")).exists());
        assert!(!cfg.join(format!("{FILE_NAME}.lock")).exists());
    }

    /// A run stopped between its temp copy and the rename leaves a whole
    /// older store, tokens included; the next write removes it, and only
    /// such copies of this store.
    #[test]
    fn a_write_removes_the_copies_a_stopped_run_left() {
        let dir = tempfile::tempdir().unwrap();
        let store = CredentialStore::at(dir.path().to_path_buf());
        store
            .update(|f| Ok(f.profiles.insert("a".into(), profile("ag1"))))
            .unwrap();
        let stale = [
            format!(".{FILE_NAME}.4242.tmp"),
            format!(".{FILE_NAME}.99.probe"),
        ];
        let kept = [
            format!(".{FILE_NAME}.notes.tmp"),
            format!("{FILE_NAME}.4242.tmp"),
            ".other.json.4242.tmp".to_string(),
        ];
        for name in stale.iter().chain(&kept) {
            fs::write(dir.path().join(name), "{\"secret-token\": 1}").unwrap();
        }
        store
            .update(|f| Ok(f.profiles.remove("a").map(drop)))
            .unwrap();
        for name in &stale {
            assert!(!dir.path().join(name).exists(), "{name} is left");
        }
        for name in &kept {
            assert!(dir.path().join(name).exists(), "{name} was removed");
        }
    }

    /// A store a newer version wrote (a profile field, a top-level key
    /// this version does not know) serves every profile this version can
    /// read; the one it cannot is refused alone, kept as written through
    /// other writes, and replaced or removed by name; a key given twice
    /// still refuses the whole store.
    #[test]
    fn a_store_over_its_size_is_refused_unread_and_never_written() {
        let (_dir, store) = private_store();
        // One profile a login would not write (a field of 1 MiB), by hand.
        let huge = "x".repeat(MAX_STORE_BYTES as usize);
        hand_written(
            &store,
            &format!(
                r#"{{"profiles": {{"p": {{"api_url": "http://127.0.0.1:1", "workspace_id": "ws", "agent_id": "{huge}", "token": "secret-token"}}}}}}"#
            ),
        );
        let refused = store.load().unwrap_err();
        assert_eq!(refused.code, "credential_store_invalid");
        assert!(
            refused.message.contains("over 1 MiB"),
            "{}",
            refused.message
        );
        // A store just under the bound reads; a profile that would take it
        // over is refused and the file is left as it was.
        let near = "x".repeat(MAX_STORE_BYTES as usize - 400);
        let mut big = profile(&near);
        big.api_url = "http://127.0.0.1:2".into();
        fs::remove_file(store.path()).unwrap();
        store
            .update(|f| Ok(f.profiles.insert("big".into(), big)))
            .unwrap();
        let before = fs::read(store.path()).unwrap();
        assert!(before.len() as u64 <= MAX_STORE_BYTES);
        let refused = store
            .update(|f| Ok(f.profiles.insert("more".into(), profile(&"y".repeat(1000)))))
            .unwrap_err();
        assert!(
            refused.message.contains("Not written") && refused.message.contains("auth logout"),
            "{}",
            refused.message
        );
        assert_eq!(fs::read(store.path()).unwrap(), before);
        assert!(store.load().unwrap().profiles.contains_key("big"));
    }

    #[test]
    fn what_this_version_cannot_read_is_kept_and_refused_alone() {
        let (_dir, store) = private_store();
        let write = |text: &str| hand_written(&store, text);
        write(
            r#"{"default_profile": "good", "version": 2, "profiles": {
                "good": {"api_url": "http://127.0.0.1:1", "workspace_id": "ws", "agent_id": "ag1", "token": "secret-token"},
                "new": {"api_url": "http://127.0.0.1:1", "workspace_id": "ws", "agent_id": "ag2", "token": "secret-token", "region": "eu"}}}"#,
        );
        let file = store.load().unwrap();
        assert_eq!(
            file.selected("good", &store.path()).unwrap().agent_id,
            "ag1"
        );
        let refused = file.selected("new", &store.path()).unwrap_err();
        assert_eq!(refused.code, "credential_store_invalid");
        assert!(
            refused.message.contains("unknown field `region`"),
            "{}",
            refused.message
        );
        assert!(
            refused.message.contains("auth logout"),
            "{}",
            refused.message
        );
        assert!(!format!("{file:?}").contains("secret-token"));
        // Another profile written: what this version cannot read stays.
        store
            .update(|f| Ok(f.profiles.insert("a".into(), profile("ag3"))))
            .unwrap();
        let written: serde_json::Value =
            serde_json::from_slice(&fs::read(store.path()).unwrap()).unwrap();
        assert_eq!(written["version"], 2);
        assert_eq!(written["profiles"]["new"]["region"], "eu");
        assert_eq!(written["profiles"]["a"]["agent_id"], "ag3");
        let names: Vec<&String> = written["profiles"].as_object().unwrap().keys().collect();
        assert_eq!(names, ["a", "good", "new"]);
        // Removed by name.
        assert!(store.update(|f| Ok(f.remove("new"))).unwrap());
        let file = store.load().unwrap();
        assert!(!file.holds("new"));
        assert_eq!(file.other["version"], 2);
        // A key given twice, even inside a profile: the whole store.
        write(
            r#"{"profiles": {"p": {"api_url": "http://127.0.0.1:1", "workspace_id": "ws",
                "agent_id": "ag1", "token": "one", "token": "two"}}}"#,
        );
        let failure = store.load().unwrap_err();
        assert!(
            failure.message.contains("duplicate field `token`"),
            "{}",
            failure.message
        );
    }

    /// A profile written at the top level by hand (`{"default": {…}}`),
    /// where profiles go under `profiles`, is told the layout, never "no
    /// profile" with a login to make one; a top-level key of another shape
    /// is still kept and ignored.
    #[test]
    fn a_profile_written_outside_profiles_is_told_the_layout() {
        let (_dir, store) = private_store();
        hand_written(
            &store,
            r#"{"version": 2, "default": {"api_url": "http://127.0.0.1:1", "workspace_id": "ws",
                "agent_id": "ag1", "token": "secret-token"}}"#,
        );
        let file = store.load().unwrap();
        let refused = file.selected("default", &store.path()).unwrap_err();
        assert_eq!(refused.code, "credential_store_invalid");
        assert!(
            refused.message.contains(
                "has `default` at its top level, shaped as a profile; profiles go under `profiles`"
            ),
            "{}",
            refused.message
        );
        assert!(!refused.message.contains("secret-token"));
        let refused = file.selected("version", &store.path()).unwrap_err();
        assert_eq!(refused.code, "credentials_missing", "{}", refused.message);
    }

    /// What a broken store's parse error names is clipped, and a
    /// token-shaped key (a token pasted where a field belongs) is hidden.
    #[test]
    fn a_broken_stores_field_names_are_clipped_and_token_shaped_ones_hidden() {
        let (_dir, store) = private_store();
        let token = "at_ig1cQ9vXk2LmP7rT4wZ8yB3nH6jD5sF0";
        let long = "k".repeat(200_000);
        for key in [token, long.as_str()] {
            hand_written(
                &store,
                &format!("{{\"profiles\": {{\"p\": {{\"{key}\": 1}}}}}}"),
            );
            let failure = store
                .load()
                .unwrap()
                .selected("p", &store.path())
                .unwrap_err();
            assert_eq!(failure.code, "credential_store_invalid");
            assert!(
                failure.message.contains("unknown field"),
                "{}",
                failure.message
            );
            assert!(!failure.message.contains(token), "{}", failure.message);
            assert!(
                failure.message.len() < 1_000,
                "{} bytes",
                failure.message.len()
            );
        }
    }

    #[test]
    fn secrets_never_print() {
        let p = profile("a");
        assert!(!format!("{p:?}").contains("secret-token"));
    }
}
