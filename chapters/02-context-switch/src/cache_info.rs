//! The machine's caches, as the kernel describes them in sysfs.
//!
//! `/sys/devices/system/cpu/cpu0/cache/index*/` has one directory per cache
//! that CPU 0 uses, with its `level`, `type` (Data, Instruction, Unified) and
//! `size` ("32K"). The cache-pollution sweep marks these sizes on its plot,
//! so the reader can see the curve step where a cache runs out.

use std::fs;
use std::path::Path;

/// One data (or unified) cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cache {
    /// 1, 2, 3...
    pub level: u32,
    /// Its size in KiB.
    pub size_kib: u64,
    /// CPUs sharing it, as the kernel lists them ("0-1").
    pub shared_with: String,
}

/// The data and unified caches of CPU 0, smallest level first. Empty if sysfs
/// does not describe them (some virtual machines do not).
pub fn data_caches() -> Vec<Cache> {
    let mut caches: Vec<Cache> = fs::read_dir("/sys/devices/system/cpu/cpu0/cache")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| read_cache(&entry.path()))
        .collect();
    caches.sort_by_key(|c| c.level);
    caches
}

fn read_cache(dir: &Path) -> Option<Cache> {
    let read = |name: &str| {
        fs::read_to_string(dir.join(name))
            .ok()
            .map(|s| s.trim().to_string())
    };
    if read("type")? == "Instruction" {
        return None;
    }
    Some(Cache {
        level: read("level")?.parse().ok()?,
        size_kib: parse_size_kib(&read("size")?)?,
        shared_with: read("shared_cpu_list").unwrap_or_default(),
    })
}

/// "32K" -> 32, "1M" -> 1024, "32768K" -> 32768.
pub fn parse_size_kib(text: &str) -> Option<u64> {
    let text = text.trim();
    if let Some(k) = text.strip_suffix('K') {
        k.parse().ok()
    } else if let Some(m) = text.strip_suffix('M') {
        m.parse::<u64>().ok().map(|m| m * 1024)
    } else {
        text.parse::<u64>().ok().map(|bytes| bytes / 1024)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size_kib("32K"), Some(32));
        assert_eq!(parse_size_kib("2M"), Some(2048));
        assert_eq!(parse_size_kib("65536"), Some(64));
        assert_eq!(parse_size_kib("lots"), None);
    }

    #[test]
    fn caches_are_sorted_by_level() {
        let caches = data_caches();
        assert!(caches.windows(2).all(|w| w[0].level <= w[1].level));
    }
}
