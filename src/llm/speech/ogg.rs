//! What an Opus-in-OGG file is, read from its bytes alone: that it is one (the `OggS` capture
//! pattern, an `OpusHead` packet first) and how long it plays. Telegram plays a voice note only in
//! this format, and the length counts against `USER_DAILY_TTS_SECONDS` and goes with `sendVoice`,
//! so it is read from the file, never trusted from a server.
//!
//! The length is the granule position of the last page (samples at 48 kHz, whatever rate the
//! source had) minus the pre-skip the `OpusHead` declares (RFC 7845, section 4).

/// Opus granule positions always count 48 kHz samples (RFC 7845, section 4).
const OPUS_SAMPLES_PER_SECOND: u64 = 48_000;

/// The fixed part of an OGG page header, before its segment table.
const PAGE_HEADER_BYTES: usize = 27;

/// Checked Opus audio in an OGG container, with how long it plays.
#[derive(Clone, PartialEq, Eq)]
pub struct OpusAudio {
    pub bytes: Vec<u8>,
    pub duration_ms: u64,
}

impl std::fmt::Debug for OpusAudio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (bytes, ms) = (self.bytes.len(), self.duration_ms);
        write!(f, "OpusAudio({bytes} bytes, {ms} ms)")
    }
}

impl OpusAudio {
    /// Whole seconds it plays, rounded up: what `sendVoice` is told and what the daily limit
    /// counts (a clip of a tenth of a second is a second of speech).
    pub fn whole_seconds(&self) -> u64 {
        self.duration_ms.div_ceil(1_000).max(1)
    }
}

/// Why bytes are not playable Opus in OGG.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OggError {
    #[error("not an OGG file (no OggS capture pattern)")]
    NotOgg,
    #[error("an OGG page is cut short")]
    Truncated,
    #[error("the OGG stream does not start with an OpusHead packet")]
    NotOpus,
    #[error("the OGG stream holds no audio")]
    Empty,
}

/// One page's header fields that matter here.
struct Page<'a> {
    granule_position: i64,
    body: &'a [u8],
}

/// Reads `bytes` as Opus in OGG: checks the header and measures the length.
pub fn read_opus(bytes: Vec<u8>) -> Result<OpusAudio, OggError> {
    if !bytes.starts_with(b"OggS") {
        return Err(OggError::NotOgg);
    }
    let mut offset = 0;
    let mut pre_skip = None;
    let mut last_granule = None;
    while offset < bytes.len() {
        let (page, next) = page_at(&bytes, offset)?;
        if pre_skip.is_none() {
            pre_skip = Some(opus_head_pre_skip(page.body)?);
        }
        // -1 marks a page on which no packet ends; it says nothing about the length.
        if page.granule_position >= 0 {
            last_granule = Some(page.granule_position as u64);
        }
        offset = next;
    }
    let pre_skip = pre_skip.ok_or(OggError::NotOpus)?;
    let samples = last_granule
        .ok_or(OggError::Empty)?
        .saturating_sub(pre_skip);
    if samples == 0 {
        return Err(OggError::Empty);
    }
    Ok(OpusAudio {
        bytes,
        duration_ms: samples * 1_000 / OPUS_SAMPLES_PER_SECOND,
    })
}

/// The page starting at `offset`, and where the next one starts.
fn page_at(bytes: &[u8], offset: usize) -> Result<(Page<'_>, usize), OggError> {
    let header = bytes
        .get(offset..offset + PAGE_HEADER_BYTES)
        .ok_or(OggError::Truncated)?;
    if &header[..4] != b"OggS" {
        return Err(OggError::NotOgg);
    }
    let mut granule = [0; 8];
    granule.copy_from_slice(&header[6..14]);
    let segments = usize::from(header[26]);
    let table_start = offset + PAGE_HEADER_BYTES;
    let table = bytes
        .get(table_start..table_start + segments)
        .ok_or(OggError::Truncated)?;
    let body_length: usize = table.iter().map(|&lacing| usize::from(lacing)).sum();
    let body_start = table_start + segments;
    let body = bytes
        .get(body_start..body_start + body_length)
        .ok_or(OggError::Truncated)?;
    let page = Page {
        granule_position: i64::from_le_bytes(granule),
        body,
    };
    Ok((page, body_start + body_length))
}

/// The pre-skip of an `OpusHead` packet: samples the decoder drops at the start.
fn opus_head_pre_skip(packet: &[u8]) -> Result<u64, OggError> {
    if packet.len() < 19 || !packet.starts_with(b"OpusHead") {
        return Err(OggError::NotOpus);
    }
    Ok(u64::from(u16::from_le_bytes([packet[10], packet[11]])))
}

/// Test support: a minimal Opus-in-OGG file of `duration_ms` (an `OpusHead` page, an `OpusTags`
/// page, one audio page whose granule position gives the length). Not playable sound, but every
/// header a player and this module read is right.
pub fn sample_opus_file(duration_ms: u64) -> Vec<u8> {
    const PRE_SKIP: u16 = 312;
    let mut head = b"OpusHead".to_vec();
    head.push(1); // version
    head.push(1); // channels
    head.extend_from_slice(&PRE_SKIP.to_le_bytes());
    head.extend_from_slice(&48_000u32.to_le_bytes());
    head.extend_from_slice(&0u16.to_le_bytes()); // output gain
    head.push(0); // channel mapping family
    let tags = b"OpusTags\x08\x00\x00\x00telemem\x00\x00\x00\x00\x00".to_vec();
    let granule = duration_ms * OPUS_SAMPLES_PER_SECOND / 1_000 + u64::from(PRE_SKIP);
    let mut file = ogg_page(0x02, 0, 0, &head);
    file.extend(ogg_page(0x00, 0, 1, &tags));
    // One silent Opus frame (TOC byte of a 20 ms CELT frame, then nothing).
    file.extend(ogg_page(0x04, granule as i64, 2, &[0xF8, 0xFF, 0xFE]));
    file
}

/// One OGG page holding `packet` (under 255 bytes), with a zero checksum.
fn ogg_page(header_type: u8, granule: i64, sequence: u32, packet: &[u8]) -> Vec<u8> {
    let mut page = b"OggS".to_vec();
    page.push(0);
    page.push(header_type);
    page.extend_from_slice(&granule.to_le_bytes());
    page.extend_from_slice(&0x7E1E_4E4Du32.to_le_bytes()); // stream serial number
    page.extend_from_slice(&sequence.to_le_bytes());
    page.extend_from_slice(&0u32.to_le_bytes()); // checksum: not checked by readers here
    page.push(1);
    page.push(u8::try_from(packet.len()).unwrap_or(u8::MAX));
    page.extend_from_slice(packet);
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_length_is_the_last_granule_minus_the_pre_skip() {
        let audio = read_opus(sample_opus_file(2_500)).expect("opus");
        assert_eq!(audio.duration_ms, 2_500);
        assert_eq!(audio.whole_seconds(), 3);
    }

    #[test]
    fn other_bytes_are_not_taken_for_opus() {
        assert_eq!(read_opus(b"ID3\x04mp3".to_vec()), Err(OggError::NotOgg));
        let mut vorbis = sample_opus_file(1_000);
        vorbis[28..36].copy_from_slice(b"\x01vorbis\x00");
        assert_eq!(read_opus(vorbis), Err(OggError::NotOpus));
        let whole = sample_opus_file(1_000);
        assert_eq!(
            read_opus(whole[..whole.len() - 2].to_vec()),
            Err(OggError::Truncated)
        );
        assert_eq!(read_opus(sample_opus_file(0)), Err(OggError::Empty));
    }
}
