package dev.warden.sinks.external;

import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.Json;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Appends audit entries to a local file, one JSON object per line (NDJSON), in {@code format} (OCSF by default: the
 * file is what a log shipper or Amazon Security Lake's custom source ingests). Each batch is written and forced to
 * disk before it counts as delivered; the file is opened for each batch, so a rotation (rename, then a new file) is
 * picked up at once. Thread-safe (batches are written one at a time).
 */
public final class FileSink implements AuditSink {
    /** The sink's type name. */
    public static final String NAME = "file";

    private final Path path;
    private final AuditFormat format;

    public FileSink(Path path, AuditFormat format) {
        this.path = path;
        this.format = format;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public synchronized void send(List<AuditEntry> batch) {
        StringBuilder lines = new StringBuilder(batch.size() * 512);
        for (AuditEntry entry : batch) {
            try {
                lines.append(Json.mapper().writeValueAsString(format.encode(entry)))
                        .append('\n');
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new SinkException(NAME + ": cannot encode " + entry.id() + ": " + e.getMessage(), e, true);
            }
        }
        try {
            Path parent = path.getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            try (FileChannel channel = FileChannel.open(
                    path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
                ByteBuffer bytes = ByteBuffer.wrap(lines.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
                channel.force(true);
            }
        } catch (IOException e) {
            throw new SinkException(NAME + ": cannot append to " + path + ": " + e.getMessage(), e);
        }
    }
}
