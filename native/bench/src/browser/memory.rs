//! A page's memory after a forced garbage collection: V8's heap (`Runtime.getHeapUsage`), the
//! renderer's counters (`Performance.getMetrics`: DOM nodes, event listeners, layout objects,
//! documents) and the resident memory of the renderer process (`/proc`, Linux).

use std::collections::HashMap;

use serde_json::{Value, json};
use tickreel::Result;

use super::Browser;

/// What a page holds, measured after a full GC.
#[derive(Clone, Debug, PartialEq)]
pub struct Memory {
    /// Bytes of live JavaScript objects (`Runtime.getHeapUsage().usedSize`).
    pub js_heap_used: u64,
    /// Bytes V8 has reserved for the heap.
    pub js_heap_total: u64,
    /// DOM nodes alive (`Nodes`).
    pub nodes: u64,
    /// Event listeners registered (`JSEventListeners`).
    pub listeners: u64,
    /// Layout objects (`LayoutObjects`).
    pub layout_objects: u64,
    /// Documents (`Documents`).
    pub documents: u64,
    /// Resident bytes of the largest page renderer of this browser, when `/proc` tells.
    pub renderer_rss: Option<u64>,
}

pub(super) fn measure(b: &mut Browser) -> Result<Memory> {
    b.call("HeapProfiler.enable", json!({}))?;
    b.call("Performance.enable", json!({}))?;
    // twice: objects freed by the first collection's finalizers go in the second
    for _ in 0..2 {
        b.call("HeapProfiler.collectGarbage", json!({}))?;
    }
    let heap = b.call("Runtime.getHeapUsage", json!({}))?;
    let m = b.call("Performance.getMetrics", json!({}))?;
    let metric = |name: &str| -> u64 {
        m["metrics"]
            .as_array()
            .and_then(|a| a.iter().find(|x| x["name"] == name))
            .and_then(|x| x["value"].as_f64())
            .map_or(0, |v| v as u64)
    };
    let num = |v: &Value| v.as_f64().map_or(0, |v| v as u64);
    Ok(Memory {
        js_heap_used: num(&heap["usedSize"]),
        js_heap_total: num(&heap["totalSize"]),
        nodes: metric("Nodes"),
        listeners: metric("JSEventListeners"),
        layout_objects: metric("LayoutObjects"),
        documents: metric("Documents"),
        renderer_rss: renderer_rss_bytes(b.pid()),
    })
}

/// The resident memory (`VmRSS`) of the largest page renderer process descending from
/// `browser_pid` (the viewer's, beside the initial blank tab's; Linux `/proc`; `None` elsewhere
/// or when none is found).
pub fn renderer_rss_bytes(browser_pid: u32) -> Option<u64> {
    let mut parent: HashMap<u32, u32> = HashMap::new();
    for e in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid ...`: the command may hold spaces and parentheses
        let Some(ppid) = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse().ok())
        else {
            continue;
        };
        parent.insert(pid, ppid);
    }
    let descends = |mut p: u32| {
        for _ in 0..16 {
            match parent.get(&p) {
                Some(&pp) if pp == browser_pid => return true,
                Some(&pp) if pp > 1 => p = pp,
                _ => return false,
            }
        }
        false
    };
    parent
        .keys()
        .filter(|&&pid| descends(pid))
        .filter(|pid| {
            // Chromium rewrites its process title: the arguments may be one space-separated
            // string. Its own UI (`--top-chrome-webui`) is not a page's renderer.
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| {
                let args: Vec<&[u8]> = c.split(|&b| b == 0 || b == b' ').collect();
                args.contains(&&b"--type=renderer"[..])
                    && !args.contains(&&b"--top-chrome-webui"[..])
                    && !args.contains(&&b"--extension-process"[..])
            })
        })
        .filter_map(|pid| {
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
            let kb: u64 = status
                .lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))?
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .ok()?;
            Some(kb * 1024)
        })
        .max()
}
