/* protocol-frames.h: what the protocol unit tests (test-protocol.c,
 * test-protocol-bad.c) share: the frames they write, as C string literals. */
#ifndef HUTCH_PROTOCOL_FRAMES_H
#define HUTCH_PROTOCOL_FRAMES_H

/* A frame: version 1, id 1, then members. */
#define F(members) "{\"version\":1,\"id\":1," members "}"
/* A session body with what it needs, then more members. */
#define S_OK "\"name\":\"s1\",\"worker\":{},\"input_base64\":\"\",\"timeout_ms\":1000"
#define SESSION(members) F("\"session\":{" members "}")
#define N64 "0123456789012345678901234567890123456789012345678901234567890123"

#endif
