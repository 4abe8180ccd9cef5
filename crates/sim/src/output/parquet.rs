//! Parquet time series through the crate's low-level column writer: one row
//! group, plain encoding, no compression and a fixed `created_by`, so the
//! same data always gives the same bytes.

use std::sync::Arc;

use parquet::basic::Compression;
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

use crate::{ca_state_name, FlowSeries, SegmentLog};

enum Col<'a> {
    F64(&'a [f64]),
    I64(Vec<i64>),
    Bool(&'a [bool]),
    Str(Vec<ByteArray>),
}

fn write(schema: &str, cols: Vec<Col<'_>>) -> Result<Vec<u8>, String> {
    let schema = Arc::new(parse_message_type(schema).map_err(|e| e.to_string())?);
    let props = Arc::new(
        WriterProperties::builder()
            .set_created_by(concat!("airtcp ", env!("CARGO_PKG_VERSION")).to_string())
            .set_compression(Compression::UNCOMPRESSED)
            .set_dictionary_enabled(false)
            .set_statistics_enabled(EnabledStatistics::Chunk)
            .build(),
    );
    let mut buf = Vec::new();
    let mut w = SerializedFileWriter::new(&mut buf, schema, props).map_err(|e| e.to_string())?;
    let mut rg = w.next_row_group().map_err(|e| e.to_string())?;
    let mut cols = cols.into_iter();
    while let Some(mut cw) = rg.next_column().map_err(|e| e.to_string())? {
        let col = cols.next().ok_or("schema has more columns than data")?;
        let r = match &col {
            Col::F64(v) => cw.typed::<DoubleType>().write_batch(v, None, None),
            Col::I64(v) => cw.typed::<Int64Type>().write_batch(v, None, None),
            Col::Bool(v) => cw.typed::<BoolType>().write_batch(v, None, None),
            Col::Str(v) => cw.typed::<ByteArrayType>().write_batch(v, None, None),
        };
        r.map_err(|e| e.to_string())?;
        cw.close().map_err(|e| e.to_string())?;
    }
    rg.close().map_err(|e| e.to_string())?;
    w.close().map_err(|e| e.to_string())?;
    Ok(buf)
}

fn i64s<T: Copy + Into<u64>>(v: &[T]) -> Vec<i64> {
    v.iter().map(|&x| x.into() as i64).collect()
}

pub fn series(s: &FlowSeries) -> Result<Vec<u8>, String> {
    let schema = "message flow_series {
        REQUIRED DOUBLE t_s;
        REQUIRED INT64 cwnd;
        REQUIRED INT64 ssthresh;
        REQUIRED DOUBLE srtt_s;
        REQUIRED DOUBLE rto_s;
        REQUIRED INT64 snd_una;
        REQUIRED INT64 snd_nxt;
        REQUIRED INT64 bytes_delivered;
        REQUIRED BYTE_ARRAY ca_state (UTF8);
    }";
    let names: Vec<ByteArray> = s.ca_state.iter().map(|&c| ByteArray::from(ca_state_name(c))).collect();
    write(
        schema,
        vec![
            Col::F64(&s.t_s),
            Col::I64(i64s(&s.cwnd)),
            Col::I64(i64s(&s.ssthresh)),
            Col::F64(&s.srtt_s),
            Col::F64(&s.rto_s),
            Col::I64(i64s(&s.snd_una)),
            Col::I64(i64s(&s.snd_nxt)),
            Col::I64(i64s(&s.bytes_delivered)),
            Col::Str(names),
        ],
    )
}

pub fn segments(s: &SegmentLog) -> Result<Vec<u8>, String> {
    let schema = "message flow_segments {
        REQUIRED DOUBLE t_s;
        REQUIRED INT64 seq;
        REQUIRED INT64 len;
        REQUIRED BOOLEAN retransmission;
    }";
    write(schema, vec![Col::F64(&s.t_s), Col::I64(i64s(&s.seq)), Col::I64(i64s(&s.len)), Col::Bool(&s.retransmission)])
}
