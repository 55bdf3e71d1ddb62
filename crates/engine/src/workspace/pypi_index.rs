//! When a PyPI release was uploaded, from the index's JSON simple API (PEP 691, with PEP 700's
//! `upload-time`): the cut-off its dependencies are resolved at.

use super::pypi_spec::{PypiError, PypiSpec, normalize};

/// The index, as uv and pip are told it (`UV_INDEX_URL`, `PIP_INDEX_URL`), else PyPI's.
fn index_url() -> String {
    ["UV_INDEX_URL", "PIP_INDEX_URL"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
        .unwrap_or_else(|| "https://pypi.org/simple".to_string())
}

/// The moment just after the release's last file was uploaded (RFC 3339), or None when the index
/// does not say (then dependencies resolve as of today).
pub fn release_cutoff(spec: &PypiSpec) -> Result<Option<String>, PypiError> {
    let url = format!(
        "{}/{}/",
        index_url().trim_end_matches('/'),
        spec.normalized_name()
    );
    let body = fetch(&url, &spec.name)?;
    let json: serde_json::Value = serde_json::from_str(&body).map_err(|e| PypiError::Index {
        name: spec.name.clone(),
        why: format!("{url} did not answer JSON: {e}"),
    })?;
    let files = json["files"].as_array().cloned().unwrap_or_default();
    let mut versions: Vec<String> = Vec::new();
    let mut latest: Option<i64> = None;
    let mut found = false;
    for file in &files {
        let name = file["filename"].as_str().unwrap_or("");
        let Some(version) = file_version(name) else {
            continue;
        };
        if !versions.contains(&version) {
            versions.push(version.clone());
        }
        if version != spec.version {
            continue;
        }
        found = true;
        if let Some(t) = file["upload-time"].as_str().and_then(epoch_seconds) {
            latest = Some(latest.map_or(t, |l| l.max(t)));
        }
    }
    if !found {
        let known = versions.iter().rev().take(5).rev().cloned().collect();
        return Err(PypiError::NoSuchRelease {
            name: spec.name.clone(),
            version: spec.version.clone(),
            known,
        });
    }
    // A minute after the upload, so that the release's own files are in.
    Ok(latest.map(|t| rfc3339(t + 60)))
}

/// The version in a wheel (`dist-1.0-py3-none-any.whl`) or sdist (`dist-1.0.tar.gz`) name.
fn file_version(filename: &str) -> Option<String> {
    if let Some(stem) = filename.strip_suffix(".whl") {
        return stem.split('-').nth(1).map(str::to_string);
    }
    let stem = [".tar.gz", ".zip", ".tar.bz2"]
        .iter()
        .find_map(|ext| filename.strip_suffix(ext))?;
    let (dist, version) = stem.rsplit_once('-')?;
    (!normalize(dist).is_empty()).then(|| version.to_string())
}

/// The JSON simple page of project `name`, on a thread of its own with its own runtime, so that
/// callers inside an async runtime can wait for it.
fn fetch(url: &str, name: &str) -> Result<String, PypiError> {
    let url = url.to_string();
    let page = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        runtime.block_on(async {
            let _ = rustls::crypto::ring::default_provider().install_default();
            let client = reqwest::Client::builder()
                .timeout(std::time::Duration::from_secs(60))
                .user_agent(concat!("mcpevol/", env!("CARGO_PKG_VERSION")))
                .build()
                .map_err(|e| e.to_string())?;
            let response = client
                .get(&url)
                .header("Accept", "application/vnd.pypi.simple.v1+json")
                .send()
                .await
                .map_err(|e| format!("{url}: {e}"))?;
            let status = response.status();
            if status == reqwest::StatusCode::NOT_FOUND {
                return Err(format!("{url} answered 404: no such project"));
            }
            if !status.is_success() {
                return Err(format!("{url} answered {status}"));
            }
            response.text().await.map_err(|e| format!("{url}: {e}"))
        })
    })
    .join()
    .unwrap_or_else(|_| Err("the index request panicked".to_string()));
    page.map_err(|why| PypiError::Index {
        name: name.to_string(),
        why,
    })
}

/// Seconds since 1970 of an RFC 3339 time (`2025-09-25T21:25:55.292Z`; without an offset,
/// UTC).
fn epoch_seconds(t: &str) -> Option<i64> {
    let parsed = chrono::DateTime::parse_from_rfc3339(t).map(|d| d.timestamp());
    parsed.ok().or_else(|| {
        let naive = chrono::NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S%.f").ok()?;
        Some(naive.and_utc().timestamp())
    })
}

/// `t` (seconds since 1970) as an RFC 3339 UTC time to the second.
fn rfc3339(t: i64) -> String {
    chrono::DateTime::from_timestamp(t, 0)
        .map(|d| d.format("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upload_times_move_a_minute_across_day_month_and_year_ends() {
        let t = epoch_seconds("2025-09-25T21:25:55.292Z").unwrap();
        assert_eq!(rfc3339(t + 60), "2025-09-25T21:26:55Z");
        let t = epoch_seconds("2024-12-31T23:59:30Z").unwrap();
        assert_eq!(rfc3339(t + 60), "2025-01-01T00:00:30Z");
        let t = epoch_seconds("2024-02-28T23:59:59Z").unwrap();
        assert_eq!(rfc3339(t + 60), "2024-02-29T00:00:59Z");
        assert_eq!(epoch_seconds("1970-01-01T00:00:00Z"), Some(0));
        // PyPI's JSON gives some times without an offset: UTC.
        assert_eq!(
            epoch_seconds("2025-09-25T21:25:55.292"),
            epoch_seconds("2025-09-25T21:25:55Z")
        );
    }

    #[test]
    fn versions_are_read_from_wheel_and_sdist_names() {
        assert_eq!(
            file_version("mcp_server_time-2025.9.25-py3-none-any.whl").as_deref(),
            Some("2025.9.25")
        );
        assert_eq!(
            file_version("mcp_server_time-0.5.1.tar.gz").as_deref(),
            Some("0.5.1")
        );
        assert_eq!(file_version("notes.txt"), None);
    }
}
