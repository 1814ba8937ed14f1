/* test-request.c: unit tests of request documents (frontend/doc/request.c):
 * a table of bad documents, each with the error code and the exact JSON
 * pointer it must get, good documents with their parsed fields, and the
 * strict base64 codec. The size bounds are in test-request-limits.c. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"
#include "doc/json-util.h"
#include "doc/policy.h"
#include "doc/request.h"
#include "doc/text.h"

#include "cunit-main.h"
#include "request-check.h"

/* argv alone, for argv cases */
#define ARGV(arr) "{\"version\":1,\"argv\":" arr "}"

struct bad_doc {
	const char *text;
	size_t len;	/* 0: strlen(text) */
	enum hutch_err code;
	const char *pointer;
};

#define BAD(t, p) { t, 0, INV, p }
#define BADN(t, p) { t, sizeof(t) - 1, INV, p } /* with a NUL inside */

static const struct bad_doc bad_docs[] = {
	/* ---- not JSON, not one object ---- */
	BAD("", ""),
	BAD("not json", ""),
	BAD("{", ""),
	BAD("}", ""),
	BAD("{\"version\":1,}", ""),
	BAD("{\"version\":1 \"argv\":[]}", ""),
	BAD("{" V "} x", ""),
	BAD("{" V "}{}", ""),
	BAD("{" V "}\n,", ""),
	BADN("{" V "}\0", ""),
	BADN("{\"version\":1,\"argv\":[\"/bin/\0\"]}", ""),
	BAD("[{" V "}]", ""),
	BAD("\"{}\"", ""),
	BAD("[] ", ""),
	BAD("1 ", ""),
	BAD("null ", ""),
	BAD("{\"version\":01,\"argv\":[\"/bin/true\"]}", ""),
	BAD("{'version':1,\"argv\":[\"/bin/true\"]}", ""),
	BAD("{\"version\":1,\"argv\":[\"/bin/true\",]}", ""),
	BAD("{\"version\":1,\"argv\":['/bin/true']}", ""),
	BAD("{\"version\":1,\"argv\":[\"/bin/\xff\"]}", ""),		/* not UTF-8 */
	BAD("{\"version\":1,\"argv\":[\"/bin/\xc0\xae\"]}", ""),	/* overlong '.' */
	BAD("{\"version\":1,\"argv\":[\"/bin/\xed\xa0\x80\"]}", ""),	/* surrogate */
	BAD("{\"version\":1,\"argv\":[\"/bin/true\"],\"env\":{\"A\":\"\\x41\"}}", ""),

	/* ---- duplicate keys: the pointer of the second ---- */
	BAD("{\"version\":1,\"version\":1,\"argv\":[\"/bin/true\"]}", "/version"),
	BAD(DOC("\"argv\":[\"/bin/false\"]"), "/argv"),
	BAD(DOC("\"\\u0061rgv\":[\"/bin/false\"]"), "/argv"),
	BAD(DOC("\"limits\":{\"wall_ms\":1,\"wall_ms\":2}"), "/limits/wall_ms"),
	BAD(DOC("\"limits\":{\"wall_ms\":1,\"wall\\u005fms\":2}"), "/limits/wall_ms"),
	BAD(DOC("\"env\":{\"A\":\"1\",\"A\":\"2\"}"), "/env/A"),
	BAD(DOC("\"stdin\":{\"text\":\"a\",\"text\":\"b\"}"), "/stdin/text"),
	BAD(DOC("\"files\":[{\"name\":\"a\",\"text\":\"\",\"name\":\"b\"}]"), "/files/0/name"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\",\"target\":\"/a\"},"
		"{\"source\":\"/tmp\",\"target\":\"/b\",\"target\":\"/c\"}]"),
	    "/mounts/1/target"),
	BAD(DOC("\"cwd\\u0000\":\"/x\""), "/cwd?"),	/* json-c would call it "cwd" */

	/* ---- \u0000 inside strings ---- */
	BAD(ARGV("[\"/bin/a\\u0000b\"]"), "/argv/0"),
	BAD(ARGV("[\"/bin/true\",\"\\u0000\"]"), "/argv/1"),
	BAD(DOC("\"env\":{\"A\":\"x\\u0000y\"}"), "/env/A"),
	BAD(DOC("\"cwd\":\"/work\\u0000\""), "/cwd"),
	BAD(DOC("\"policy\":\"default\\u0000\""), "/policy"),
	BAD(DOC("\"collect\":[\"a\\u0000b\"]"), "/collect/0"),
	BAD(DOC("\"files\":[{\"name\":\"a\\u0000b\",\"text\":\"\"}]"), "/files/0/name"),
	BAD(DOC("\"files\":[{\"name\":\"a\",\"base64\":\"\\u0000AAA\"}]"), "/files/0/base64"),
	BAD(DOC("\"stdin\":{\"base64\":\"YQ=\\u0000\"}"), "/stdin/base64"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\\u0000\",\"target\":\"/a\"}]"), "/mounts/0/source"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\",\"target\":\"/a\\u0000\"}]"), "/mounts/0/target"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\",\"target\":\"/a\",\"mode\":\"r\\u0000\"}]"),
	    "/mounts/0/mode"),
	BAD(DOC("\"stdout_mode\":\"frame\\u0000\""), "/stdout_mode"),
	BAD(DOC("\"network\":\"none\\u0000\""), "/network"),

	/* ---- unknown fields, at every level ---- */
	BAD(DOC("\"foo\":1"), "/foo"),
	BAD(DOC("\"Argv\":[\"/bin/true\"]"), "/Argv"),
	BAD(DOC("\"a/b~c\":1"), "/a~1b~0c"),
	BAD(DOC("\"x\\u0001\":1"), "/x?"),
	BAD(DOC("\"\":1"), "/"),
	BAD("{\"foo\":1}", "/foo"),	/* before the missing version */
	BAD(DOC("\"limits\":{\"bogus\":1}"), "/limits/bogus"),
	BAD(DOC("\"limits\":{\"WALL_MS\":1}"), "/limits/WALL_MS"),
	BAD(DOC("\"limits\":{\"tmp_bytes\":1048576}"), "/limits/tmp_bytes"), /* policy only */
	BAD(DOC("\"limits\":{\"work_bytes\":1048576}"), "/limits/work_bytes"),
	BAD(DOC("\"limits\":{\"tmp_inodes\":100}"), "/limits/tmp_inodes"), /* policy only */
	BAD(DOC("\"limits\":{\"work_inodes\":100}"), "/limits/work_inodes"),
	BAD(DOC("\"stdin\":{\"text\":\"\",\"mode\":1}"), "/stdin/mode"),
	BAD(DOC("\"stdin\":{\"text\":\"\",\"name\":\"x\"}"), "/stdin/name"),
	BAD(DOC("\"files\":[{\"name\":\"a\",\"text\":\"\",\"mode\":420}]"), "/files/0/mode"),
	BAD(DOC("\"files\":[{\"bad\":1}]"), "/files/0/bad"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\",\"target\":\"/a\",\"exec\":true}]"),
	    "/mounts/0/exec"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\",\"target\":\"/a\",\"mode\":\"overlays\"}]"),
	    "/mounts/0/mode"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\",\"target\":\"/a\",\"mode\":\"cow\"}]"),
	    "/mounts/0/mode"),
	BAD(DOC("\"export_changes\":1"), "/export_changes"),
	BAD(DOC("\"export_changes\":\"true\""), "/export_changes"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\",\"target\":\"/a\",\"rw\":true}]"),
	    "/mounts/0/rw"),

	/* ---- version ---- */
	BAD("{\"argv\":[\"/bin/true\"]}", "/version"),
	BAD("{\"version\":0,\"argv\":[\"/bin/true\"]}", "/version"),
	BAD("{\"version\":2,\"argv\":[\"/bin/true\"]}", "/version"),
	BAD("{\"version\":\"1\",\"argv\":[\"/bin/true\"]}", "/version"),
	BAD("{\"version\":1.0,\"argv\":[\"/bin/true\"]}", "/version"),
	BAD("{\"version\":1e0,\"argv\":[\"/bin/true\"]}", "/version"),
	BAD("{\"version\":-1,\"argv\":[\"/bin/true\"]}", "/version"),
	BAD("{\"version\":null,\"argv\":[\"/bin/true\"]}", "/version"),
	BAD("{\"version\":true,\"argv\":[\"/bin/true\"]}", "/version"),
	BAD("{\"version\":[1],\"argv\":[\"/bin/true\"]}", "/version"),
	BAD("{\"version\":NaN,\"argv\":[\"/bin/true\"]}", "/version"),
	BAD("{\"version\":18446744073709551617,\"argv\":[\"/bin/true\"]}", "/version"),

	/* ---- policy ---- */
	BAD(DOC("\"policy\":1"), "/policy"),
	BAD(DOC("\"policy\":null"), "/policy"),
	BAD(DOC("\"policy\":[\"default\"]"), "/policy"),

	/* ---- argv ---- */
	BAD("{\"version\":1}", "/argv"),
	BAD(ARGV("[]"), "/argv"),
	BAD(ARGV("\"/bin/true\""), "/argv"),
	BAD(ARGV("{}"), "/argv"),
	BAD(ARGV("null"), "/argv"),
	BAD(ARGV("[1]"), "/argv/0"),
	BAD(ARGV("[\"/bin/true\",2]"), "/argv/1"),
	BAD(ARGV("[\"/bin/true\",true]"), "/argv/1"),
	BAD(ARGV("[\"/bin/true\",{}]"), "/argv/1"),
	BAD(ARGV("[\"/bin/true\",\"a\",null]"), "/argv/2"),
	BAD(ARGV("[\"/bin/true\",\"a\",[\"x\"]]"), "/argv/2"),
	BAD(ARGV("[\"\"]"), "/argv/0"),
	BAD(ARGV("[\"\",\"x\"]"), "/argv/0"),

	/* ---- env ---- */
	BAD(DOC("\"env\":[]"), "/env"),
	BAD(DOC("\"env\":\"A=1\""), "/env"),
	BAD(DOC("\"env\":null"), "/env"),
	BAD(DOC("\"env\":{\"1A\":\"x\"}"), "/env/1A"),
	BAD(DOC("\"env\":{\"9\":\"x\"}"), "/env/9"),
	BAD(DOC("\"env\":{\"A=B\":\"x\"}"), "/env/A=B"),
	BAD(DOC("\"env\":{\"A-B\":\"x\"}"), "/env/A-B"),
	BAD(DOC("\"env\":{\"\":\"x\"}"), "/env/"),
	BAD(DOC("\"env\":{\"A B\":\"x\"}"), "/env/A B"),
	BAD(DOC("\"env\":{\"A.B\":\"x\"}"), "/env/A.B"),
	BAD(DOC("\"env\":{\"A/B\":\"x\"}"), "/env/A~1B"),
	BAD(DOC("\"env\":{\"\xc3\x89T\xc3\x89\":\"x\"}"), "/env/\xc3\x89T\xc3\x89"),
	BAD(DOC("\"env\":{\"A\\u0001\":\"x\"}"), "/env/A?"),
	BAD(DOC("\"env\":{\"OK\":\"1\",\"BAD-\":\"x\"}"), "/env/BAD-"),
	BAD(DOC("\"env\":{\"A\":1}"), "/env/A"),
	BAD(DOC("\"env\":{\"A\":null}"), "/env/A"),
	BAD(DOC("\"env\":{\"A\":true}"), "/env/A"),
	BAD(DOC("\"env\":{\"A\":[\"x\"]}"), "/env/A"),
	BAD(DOC("\"env\":{\"A\":{}}"), "/env/A"),

	/* ---- cwd ---- */
	BAD(DOC("\"cwd\":\"work\""), "/cwd"),
	BAD(DOC("\"cwd\":\"\""), "/cwd"),
	BAD(DOC("\"cwd\":\"./work\""), "/cwd"),
	BAD(DOC("\"cwd\":\"/work/../etc\""), "/cwd"),
	BAD(DOC("\"cwd\":\"/work/..\""), "/cwd"),
	BAD(DOC("\"cwd\":\"/..\""), "/cwd"),
	BAD(DOC("\"cwd\":\"/work/./x\""), "/cwd"),
	BAD(DOC("\"cwd\":\"/./work\""), "/cwd"),
	BAD(DOC("\"cwd\":\"/work/\""), "/cwd"),
	BAD(DOC("\"cwd\":\"//work\""), "/cwd"),
	BAD(DOC("\"cwd\":\"/work//x\""), "/cwd"),
	BAD(DOC("\"cwd\":\"/work/\\u0001\""), "/cwd"),
	BAD(DOC("\"cwd\":\"/work/a\\nb\""), "/cwd"),
	BAD(DOC("\"cwd\":\"/work/a\\tb\""), "/cwd"),
	BAD(DOC("\"cwd\":\"/work/\\u001b[0m\""), "/cwd"),
	BAD(DOC("\"cwd\":\"/work/\\u007f\""), "/cwd"),
	BAD(DOC("\"cwd\":1"), "/cwd"),
	BAD(DOC("\"cwd\":null"), "/cwd"),
	BAD(DOC("\"cwd\":[\"/work\"]"), "/cwd"),

	/* ---- stdin ---- */
	BAD(DOC("\"stdin\":\"x\""), "/stdin"),
	BAD(DOC("\"stdin\":null"), "/stdin"),
	BAD(DOC("\"stdin\":[]"), "/stdin"),
	BAD(DOC("\"stdin\":{}"), "/stdin"),
	BAD(DOC("\"stdin\":{\"text\":\"a\",\"base64\":\"YQ==\"}"), "/stdin"),
	BAD(DOC("\"stdin\":{\"text\":1}"), "/stdin/text"),
	BAD(DOC("\"stdin\":{\"text\":null}"), "/stdin/text"),
	BAD(DOC("\"stdin\":{\"base64\":1}"), "/stdin/base64"),
	BAD(DOC("\"stdin\":{\"base64\":[\"YQ==\"]}"), "/stdin/base64"),
	BAD(DOC("\"stdin\":{\"base64\":\"YQ=\"}"), "/stdin/base64"),		/* length */
	BAD(DOC("\"stdin\":{\"base64\":\"YQ\"}"), "/stdin/base64"),
	BAD(DOC("\"stdin\":{\"base64\":\"Y\"}"), "/stdin/base64"),
	BAD(DOC("\"stdin\":{\"base64\":\"YWJjZ\"}"), "/stdin/base64"),
	BAD(DOC("\"stdin\":{\"base64\":\"Y*==\"}"), "/stdin/base64"),		/* alphabet */
	BAD(DOC("\"stdin\":{\"base64\":\"Zm-_\"}"), "/stdin/base64"),
	BAD(DOC("\"stdin\":{\"base64\":\"Zm9v Zm9v\"}"), "/stdin/base64"),
	BAD(DOC("\"stdin\":{\"base64\":\"Zm9v\\n\"}"), "/stdin/base64"),
	BAD(DOC("\"stdin\":{\"base64\":\"Zm9\xc3\xa9\"}"), "/stdin/base64"),
	BAD(DOC("\"stdin\":{\"base64\":\"Y=Q=\"}"), "/stdin/base64"),		/* padding */
	BAD(DOC("\"stdin\":{\"base64\":\"=QQQ\"}"), "/stdin/base64"),
	BAD(DOC("\"stdin\":{\"base64\":\"Y===\"}"), "/stdin/base64"),
	BAD(DOC("\"stdin\":{\"base64\":\"====\"}"), "/stdin/base64"),
	BAD(DOC("\"stdin\":{\"base64\":\"YQ=A\"}"), "/stdin/base64"),
	BAD(DOC("\"stdin\":{\"base64\":\"YQ==YQ==\"}"), "/stdin/base64"),
	BAD(DOC("\"stdin\":{\"base64\":\"YR==\"}"), "/stdin/base64"),	/* stray bits */
	BAD(DOC("\"stdin\":{\"base64\":\"YWJ=\"}"), "/stdin/base64"),
	BAD(DOC("\"stdin\":{\"unknown\":1}"), "/stdin/unknown"),

	/* ---- files ---- */
	BAD(DOC("\"files\":{}"), "/files"),
	BAD(DOC("\"files\":\"a\""), "/files"),
	BAD(DOC("\"files\":[1]"), "/files/0"),
	BAD(DOC("\"files\":[\"a\"]"), "/files/0"),
	BAD(DOC("\"files\":[null]"), "/files/0"),
	BAD(DOC("\"files\":[[]]"), "/files/0"),
	BAD(DOC("\"files\":[{\"text\":\"x\"}]"), "/files/0/name"),
	BAD(DOC("\"files\":[{\"name\":1,\"text\":\"\"}]"), "/files/0/name"),
	BAD(DOC("\"files\":[{\"name\":\"a/b\",\"text\":\"\"}]"), "/files/0/name"),
	BAD(DOC("\"files\":[{\"name\":\"/a\",\"text\":\"\"}]"), "/files/0/name"),
	BAD(DOC("\"files\":[{\"name\":\"a/\",\"text\":\"\"}]"), "/files/0/name"),
	BAD(DOC("\"files\":[{\"name\":\".\",\"text\":\"\"}]"), "/files/0/name"),
	BAD(DOC("\"files\":[{\"name\":\"..\",\"text\":\"\"}]"), "/files/0/name"),
	BAD(DOC("\"files\":[{\"name\":\"\",\"text\":\"\"}]"), "/files/0/name"),
	BAD(DOC("\"files\":[{\"name\":\"a\\u0001\",\"text\":\"\"}]"), "/files/0/name"),
	BAD(DOC("\"files\":[{\"name\":\"a\\nb\",\"text\":\"\"}]"), "/files/0/name"),
	BAD(DOC("\"files\":[{\"name\":\"a\\u007f\",\"text\":\"\"}]"), "/files/0/name"),
	BAD(DOC("\"files\":[{\"name\":\"a\"}]"), "/files/0"),
	BAD(DOC("\"files\":[{\"name\":\"a\",\"text\":\"\",\"base64\":\"\"}]"), "/files/0"),
	BAD(DOC("\"files\":[{\"name\":\"a\",\"text\":1}]"), "/files/0/text"),
	BAD(DOC("\"files\":[{\"name\":\"a\",\"base64\":null}]"), "/files/0/base64"),
	BAD(DOC("\"files\":[{\"name\":\"a\",\"base64\":\"YQ=\"}]"), "/files/0/base64"),
	BAD(DOC("\"files\":[{\"name\":\"a\",\"base64\":\"Y!==\"}]"), "/files/0/base64"),
	BAD(DOC("\"files\":[{\"name\":\"a\",\"text\":\"\"},{\"name\":\"a\",\"base64\":\"\"}]"),
	    "/files/1/name"),
	BAD(DOC("\"files\":[{\"name\":\"a\",\"text\":\"\"},{\"name\":\"b/c\",\"text\":\"\"}]"),
	    "/files/1/name"),

	/* ---- collect ---- */
	BAD(DOC("\"collect\":\"out\""), "/collect"),
	BAD(DOC("\"collect\":{}"), "/collect"),
	BAD(DOC("\"collect\":[1]"), "/collect/0"),
	BAD(DOC("\"collect\":[\"ok\",null]"), "/collect/1"),
	BAD(DOC("\"collect\":[[\"a\"]]"), "/collect/0"),
	BAD(DOC("\"collect\":[\"a\",\"a\"]"), "/collect/1"),
	BAD(DOC("\"collect\":[\"a\",\"b\",\"a\"]"), "/collect/2"),
	BAD(DOC("\"collect\":[\"a/b\",\"a/b\"]"), "/collect/1"),
	BAD(DOC("\"collect\":[\"a/../b\"]"), "/collect/0"),
	BAD(DOC("\"collect\":[\"../b\"]"), "/collect/0"),
	BAD(DOC("\"collect\":[\"/etc/shadow\"]"), "/collect/0"),
	BAD(DOC("\"collect\":[\"a//b\"]"), "/collect/0"),
	BAD(DOC("\"collect\":[\"a/\"]"), "/collect/0"),
	BAD(DOC("\"collect\":[\"a/./b\"]"), "/collect/0"),
	BAD(DOC("\"collect\":[\"..\"]"), "/collect/0"),
	BAD(DOC("\"collect\":[\".\"]"), "/collect/0"),
	BAD(DOC("\"collect\":[\"\"]"), "/collect/0"),
	BAD(DOC("\"collect\":[\"a\\u0002\"]"), "/collect/0"),

	/* ---- limits ---- */
	BAD(DOC("\"limits\":[]"), "/limits"),
	BAD(DOC("\"limits\":null"), "/limits"),
	BAD(DOC("\"limits\":10000"), "/limits"),
	BAD(DOC("\"limits\":{\"wall_ms\":-1}"), "/limits/wall_ms"),
	BAD(DOC("\"limits\":{\"wall_ms\":1.5}"), "/limits/wall_ms"),
	BAD(DOC("\"limits\":{\"wall_ms\":1000.0}"), "/limits/wall_ms"),
	BAD(DOC("\"limits\":{\"wall_ms\":1e3}"), "/limits/wall_ms"),
	BAD(DOC("\"limits\":{\"wall_ms\":\"10\"}"), "/limits/wall_ms"),
	BAD(DOC("\"limits\":{\"wall_ms\":null}"), "/limits/wall_ms"),
	BAD(DOC("\"limits\":{\"wall_ms\":true}"), "/limits/wall_ms"),
	BAD(DOC("\"limits\":{\"wall_ms\":[1]}"), "/limits/wall_ms"),
	BAD(DOC("\"limits\":{\"wall_ms\":NaN}"), "/limits/wall_ms"),
	BAD(DOC("\"limits\":{\"wall_ms\":Infinity}"), "/limits/wall_ms"),
	BAD(DOC("\"limits\":{\"wall_ms\":0}"), "/limits/wall_ms"),
	BAD(DOC("\"limits\":{\"wall_ms\":604800001}"), "/limits/wall_ms"),
	BAD(DOC("\"limits\":{\"wall_ms\":9223372036854775807}"), "/limits/wall_ms"),
	BAD(DOC("\"limits\":{\"wall_ms\":99999999999999999999}"), "/limits/wall_ms"),
	BAD(DOC("\"limits\":{\"cpu_ms\":0}"), "/limits/cpu_ms"),
	BAD(DOC("\"limits\":{\"idle_ms\":604800001}"), "/limits/idle_ms"),
	BAD(DOC("\"limits\":{\"memory_bytes\":16777215}"), "/limits/memory_bytes"),
	BAD(DOC("\"limits\":{\"memory_bytes\":1099511627777}"), "/limits/memory_bytes"),
	BAD(DOC("\"limits\":{\"stdout_bytes\":68719476737}"), "/limits/stdout_bytes"),
	BAD(DOC("\"limits\":{\"stderr_bytes\":true}"), "/limits/stderr_bytes"),
	BAD(DOC("\"limits\":{\"file_size_bytes\":null}"), "/limits/file_size_bytes"),
	BAD(DOC("\"limits\":{\"processes\":0}"), "/limits/processes"),
	BAD(DOC("\"limits\":{\"processes\":1048577}"), "/limits/processes"),
	BAD(DOC("\"limits\":{\"open_files\":7}"), "/limits/open_files"),
	BAD(DOC("\"limits\":{\"wall_ms\":1000,\"processes\":0}"), "/limits/processes"),

	/* ---- stdout_mode, network ---- */
	BAD(DOC("\"stdout_mode\":\"Stream\""), "/stdout_mode"),
	BAD(DOC("\"stdout_mode\":\"FRAME\""), "/stdout_mode"),
	BAD(DOC("\"stdout_mode\":\"\""), "/stdout_mode"),
	BAD(DOC("\"stdout_mode\":\"stream \""), "/stdout_mode"),
	BAD(DOC("\"stdout_mode\":\"streamstreamstream\""), "/stdout_mode"),	/* too long */
	BAD(DOC("\"stdout_mode\":1"), "/stdout_mode"),
	BAD(DOC("\"stdout_mode\":null"), "/stdout_mode"),
	BAD(DOC("\"network\":\"all\""), "/network"),
	BAD(DOC("\"network\":\"NONE\""), "/network"),
	BAD(DOC("\"network\":\"\""), "/network"),
	BAD(DOC("\"network\":\"loopback6\""), "/network"),
	BAD(DOC("\"network\":false"), "/network"),
	BAD(DOC("\"network\":null"), "/network"),
	BAD(DOC("\"network\":[\"none\"]"), "/network"),

	/* ---- mounts ---- */
	BAD(DOC("\"mounts\":{}"), "/mounts"),
	BAD(DOC("\"mounts\":\"/tmp:/a\""), "/mounts"),
	BAD(DOC("\"mounts\":[1]"), "/mounts/0"),
	BAD(DOC("\"mounts\":[\"/tmp\"]"), "/mounts/0"),
	BAD(DOC("\"mounts\":[null]"), "/mounts/0"),
	BAD(DOC("\"mounts\":[[]]"), "/mounts/0"),
	BAD(DOC("\"mounts\":[{}]"), "/mounts/0/source"),
	BAD(DOC("\"mounts\":[{\"target\":\"/data\"}]"), "/mounts/0/source"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\"}]"), "/mounts/0/target"),
	BAD(DOC("\"mounts\":[{\"source\":1,\"target\":\"/a\"}]"), "/mounts/0/source"),
	BAD(DOC("\"mounts\":[{\"source\":\"tmp\",\"target\":\"/a\"}]"), "/mounts/0/source"),
	BAD(DOC("\"mounts\":[{\"source\":\"\",\"target\":\"/a\"}]"), "/mounts/0/source"),
	BAD(DOC("\"mounts\":[{\"source\":\"/\",\"target\":\"/a\"}]"), "/mounts/0/source"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp/\",\"target\":\"/a\"}]"), "/mounts/0/source"),
	BAD(DOC("\"mounts\":[{\"source\":\"//tmp\",\"target\":\"/a\"}]"), "/mounts/0/source"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp/../etc\",\"target\":\"/a\"}]"), "/mounts/0/source"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp/..\",\"target\":\"/a\"}]"), "/mounts/0/source"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp/\\u0001\",\"target\":\"/a\"}]"),
	    "/mounts/0/source"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\",\"target\":1}]"), "/mounts/0/target"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\",\"target\":\"data\"}]"), "/mounts/0/target"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\",\"target\":\"\"}]"), "/mounts/0/target"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\",\"target\":\"/\"}]"), "/mounts/0/target"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\",\"target\":\"/data/..\"}]"), "/mounts/0/target"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\",\"target\":\"/a/./b\"}]"), "/mounts/0/target"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\",\"target\":\"/data\\u0001\"}]"),
	    "/mounts/0/target"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\",\"target\":\"/a\",\"mode\":\"rx\"}]"),
	    "/mounts/0/mode"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\",\"target\":\"/a\",\"mode\":\"RO\"}]"),
	    "/mounts/0/mode"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\",\"target\":\"/a\",\"mode\":\"\"}]"),
	    "/mounts/0/mode"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\",\"target\":\"/a\",\"mode\":\"rw \"}]"),
	    "/mounts/0/mode"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\",\"target\":\"/a\",\"mode\":1}]"),
	    "/mounts/0/mode"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\",\"target\":\"/a\",\"mode\":null}]"),
	    "/mounts/0/mode"),
	BAD(DOC("\"mounts\":[{\"source\":\"/tmp\",\"target\":\"/a\"},"
		"{\"source\":\"/tmp\",\"target\":\"x\"}]"),
	    "/mounts/1/target"),
	/* ---- mounts by descriptor (serve frames): an index below 16 ---- */
	BAD(DOC("\"mounts\":[{\"source_fd\":-1,\"target\":\"/a\"}]"), "/mounts/0/source_fd"),
	BAD(DOC("\"mounts\":[{\"source_fd\":16,\"target\":\"/a\"}]"), "/mounts/0/source_fd"),
	BAD(DOC("\"mounts\":[{\"source_fd\":4294967296,\"target\":\"/a\"}]"),
	    "/mounts/0/source_fd"),
	BAD(DOC("\"mounts\":[{\"source_fd\":\"0\",\"target\":\"/a\"}]"), "/mounts/0/source_fd"),
	BAD(DOC("\"mounts\":[{\"source_fd\":0.0,\"target\":\"/a\"}]"), "/mounts/0/source_fd"),
	BAD(DOC("\"mounts\":[{\"source_fd\":null,\"target\":\"/a\"}]"), "/mounts/0/source_fd"),
	BAD(DOC("\"mounts\":[{\"source_fd\":true,\"target\":\"/a\"}]"), "/mounts/0/source_fd"),
	BAD(DOC("\"mounts\":[{\"source_fd\":0,\"source\":\"/tmp\",\"target\":\"/a\"}]"),
	    "/mounts/0/source_fd"),
	BAD(DOC("\"mounts\":[{\"source_fd\":0,\"source_fd\":1,\"target\":\"/a\"}]"),
	    "/mounts/0/source_fd"),
	BAD(DOC("\"mounts\":[{\"source_fd\":0}]"), "/mounts/0/target"),
	BAD(DOC("\"mounts\":[{\"source_fd\":0,\"target\":\"/a\",\"mode\":\"x\"}]"),
	    "/mounts/0/mode"),
	BAD(DOC("\"mounts\":[{\"sourcefd\":0,\"target\":\"/a\"}]"), "/mounts/0/sourcefd"),
};

static void test_bad_table(void)
{
	CU_ASSERT(ARRAY_SIZE(bad_docs) >= 100);
	for (size_t i = 0; i < ARRAY_SIZE(bad_docs); i++) {
		const struct bad_doc *b = &bad_docs[i];
		char what[64];

		snprintf(what, sizeof(what), "bad_docs[%zu]", i);
		check_bad(what, b->text, b->len ? b->len : strlen(b->text), b->code, b->pointer);
	}
}

/* ---- good documents ---- */

static struct request parse_ok(const char *text)
{
	struct request r = { 0 };
	struct verrors e = { 0 };
	int rc = request_parse(text, strlen(text), &r, &e);

	if (rc != 0)
		fprintf(stderr, "\n  rejected at \"%s\" (%s): %s\n", e.n ? e.items[0].pointer : "",
			e.n ? e.items[0].reason : "", text);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(e.n, 0);
	return r;
}

static void test_good_minimal(void)
{
	struct request r = parse_ok(" \n\t{\"argv\":[\"/bin/true\"],\"version\":1}\r\n ");

	CU_ASSERT_PTR_NULL(r.policy);
	CU_ASSERT_EQUAL_FATAL(r.argc, 1);
	CU_ASSERT_STRING_EQUAL(r.argv[0], "/bin/true");
	CU_ASSERT_PTR_NULL(r.argv[1]);
	CU_ASSERT_EQUAL(r.n_env, 0);
	CU_ASSERT_PTR_NULL(r.cwd);
	CU_ASSERT_FALSE(r.stdin_given);
	CU_ASSERT_EQUAL(r.n_files, 0);
	CU_ASSERT_EQUAL(r.n_collect, 0);
	for (int i = 0; i < LIM_COUNT; i++)
		CU_ASSERT_FALSE(r.limit_set[i]);
	CU_ASSERT_FALSE(r.stdout_mode_set);
	CU_ASSERT_FALSE(r.network_set);
	CU_ASSERT_EQUAL(r.n_mounts, 0);
	request_free(&r);
	CU_ASSERT_PTR_NULL(r.argv);	/* request_free clears */
}

static const char full_doc[] =
	"{\"version\":1,\"policy\":\"strict\","
	"\"argv\":[\"/usr/bin/python3\",\"-c\",\"print(6*7)\",\"\",\"\\u00e9\\ud83d\\ude00\"],"
	"\"env\":{\"LANG\":\"C.UTF-8\",\"TZ\":\"\",\"LC_ALL\":\"x=y\",\"_a1\":\"\\u00e9\"},"
	"\"cwd\":\"/work/sub\","
	"\"stdin\":{\"text\":\"in\\u0000put\"},"
	"\"files\":[{\"name\":\"in.txt\",\"text\":\"hello\\n\"},"
	"{\"base64\":\"AP8Q\",\"name\":\"in.bin\"},"
	"{\"name\":\"empty\",\"base64\":\"\"},"
	"{\"name\":\"...\",\"text\":\"\"},"
	"{\"name\":\"sp ace \\u00e9\",\"base64\":\"Zm9vYg==\"}],"
	"\"collect\":[\"out.txt\",\".hidden\"],"
	"\"limits\":{\"wall_ms\":10000,\"memory_bytes\":16777216,\"idle_ms\":0},"
	"\"stdout_mode\":\"frame\","
	"\"network\":\"loopback\","
	"\"mounts\":[{\"source\":\"/srv/data\",\"target\":\"/data\"},"
	"{\"mode\":\"rw\",\"target\":\"/out\",\"source\":\"/srv/out\"},"
	"{\"source\":\"/srv/x\",\"target\":\"/work/x\",\"mode\":\"ro\"}]}";

static void test_good_full(void)
{
	static const char *const env[][2] = {
		{ "LANG", "C.UTF-8" }, { "TZ", "" }, { "LC_ALL", "x=y" }, { "_a1", "\xc3\xa9" },
	};
	struct request r = parse_ok(full_doc);

	CU_ASSERT_STRING_EQUAL(r.policy, "strict");
	CU_ASSERT_EQUAL_FATAL(r.argc, 5);
	CU_ASSERT_STRING_EQUAL(r.argv[0], "/usr/bin/python3");
	CU_ASSERT_STRING_EQUAL(r.argv[1], "-c");
	CU_ASSERT_STRING_EQUAL(r.argv[2], "print(6*7)");
	CU_ASSERT_STRING_EQUAL(r.argv[3], "");
	CU_ASSERT_STRING_EQUAL(r.argv[4], "\xc3\xa9\xf0\x9f\x98\x80");
	CU_ASSERT_PTR_NULL(r.argv[5]);

	CU_ASSERT_EQUAL_FATAL(r.n_env, ARRAY_SIZE(env));
	for (size_t i = 0; i < ARRAY_SIZE(env); i++) {
		CU_ASSERT_STRING_EQUAL(r.env_names[i], env[i][0]);
		CU_ASSERT_STRING_EQUAL(r.env_values[i], env[i][1]);
	}
	CU_ASSERT_STRING_EQUAL(r.cwd, "/work/sub");

	CU_ASSERT_TRUE(r.stdin_given);
	CU_ASSERT_EQUAL_FATAL(r.stdin_len, 6);
	CU_ASSERT_EQUAL(memcmp(r.stdin_data, "in\0put", 6), 0);

	CU_ASSERT_EQUAL_FATAL(r.n_files, 5);
	CU_ASSERT_STRING_EQUAL(r.files[0].name, "in.txt");
	CU_ASSERT_EQUAL(r.files[0].len, 6);
	CU_ASSERT_EQUAL(memcmp(r.files[0].data, "hello\n", 6), 0);
	CU_ASSERT_STRING_EQUAL(r.files[1].name, "in.bin");
	CU_ASSERT_EQUAL_FATAL(r.files[1].len, 3);
	CU_ASSERT_EQUAL(memcmp(r.files[1].data, "\x00\xff\x10", 3), 0);
	CU_ASSERT_STRING_EQUAL(r.files[2].name, "empty");
	CU_ASSERT_EQUAL(r.files[2].len, 0);
	CU_ASSERT_STRING_EQUAL(r.files[3].name, "...");
	CU_ASSERT_EQUAL(r.files[3].len, 0);
	CU_ASSERT_STRING_EQUAL(r.files[4].name, "sp ace \xc3\xa9");
	CU_ASSERT_EQUAL_FATAL(r.files[4].len, 4);
	CU_ASSERT_EQUAL(memcmp(r.files[4].data, "foob", 4), 0);

	CU_ASSERT_EQUAL_FATAL(r.n_collect, 2);
	CU_ASSERT_STRING_EQUAL(r.collect[0], "out.txt");
	CU_ASSERT_STRING_EQUAL(r.collect[1], ".hidden");
	CU_ASSERT_PTR_NULL(r.collect[2]);

	for (int i = 0; i < LIM_COUNT; i++)
		CU_ASSERT_EQUAL(r.limit_set[i],
				i == LIM_WALL_MS || i == LIM_MEMORY_BYTES || i == LIM_IDLE_MS);
	CU_ASSERT_EQUAL(r.limits[LIM_WALL_MS], 10000);
	CU_ASSERT_EQUAL(r.limits[LIM_MEMORY_BYTES], 16777216);
	CU_ASSERT_EQUAL(r.limits[LIM_IDLE_MS], 0);

	CU_ASSERT_TRUE(r.stdout_mode_set);
	CU_ASSERT_EQUAL(r.stdout_mode, STDOUT_FRAME);
	CU_ASSERT_TRUE(r.network_set);
	CU_ASSERT_EQUAL(r.network, NET_LOOPBACK);

	CU_ASSERT_EQUAL_FATAL(r.n_mounts, 3);
	CU_ASSERT_STRING_EQUAL(r.mounts[0].source, "/srv/data");
	CU_ASSERT_STRING_EQUAL(r.mounts[0].target, "/data");
	CU_ASSERT_FALSE(r.mounts[0].rw);	/* mode defaults to ro */
	CU_ASSERT_STRING_EQUAL(r.mounts[1].source, "/srv/out");
	CU_ASSERT_STRING_EQUAL(r.mounts[1].target, "/out");
	CU_ASSERT_TRUE(r.mounts[1].rw);
	CU_ASSERT_STRING_EQUAL(r.mounts[2].target, "/work/x");
	CU_ASSERT_FALSE(r.mounts[2].rw);
	request_free(&r);
}

/* mode "overlay" and export_changes (copy-on-write binds). */
static void test_good_overlay(void)
{
	struct request r = parse_ok(DOC("\"mounts\":[{\"source\":\"/srv/src\",\"target\":\"/src\","
					"\"mode\":\"overlay\"}],\"export_changes\":true"));

	CU_ASSERT_EQUAL_FATAL(r.n_mounts, 1);
	CU_ASSERT_TRUE(r.mounts[0].overlay);
	CU_ASSERT_FALSE(r.mounts[0].rw);
	CU_ASSERT_TRUE(r.export_changes);
	request_free(&r);
	r = parse_ok(DOC("\"mounts\":[{\"source\":\"/srv\",\"target\":\"/s\",\"mode\":\"rw\"}]"));
	CU_ASSERT_FALSE(r.mounts[0].overlay);
	CU_ASSERT_FALSE(r.export_changes);
	request_free(&r);
}

/* A mount names its source by path or by the index of a descriptor the
 * frame passed; the parser keeps which, and never both. */
static void test_good_source_fd(void)
{
	struct request r = parse_ok(DOC(
		"\"mounts\":[{\"source_fd\":0,\"target\":\"/a\"},"
		"{\"target\":\"/b\",\"source_fd\":15,\"mode\":\"rw\"},"
		"{\"source\":\"/srv\",\"target\":\"/c\"},"
		"{\"source_fd\":0,\"target\":\"/d\"}]"));

	CU_ASSERT_EQUAL_FATAL(r.n_mounts, 4);
	CU_ASSERT_PTR_NULL(r.mounts[0].source);
	CU_ASSERT_EQUAL(r.mounts[0].source_fd, 0);
	CU_ASSERT_FALSE(r.mounts[0].rw);
	CU_ASSERT_PTR_NULL(r.mounts[1].source);
	CU_ASSERT_EQUAL(r.mounts[1].source_fd, 15);
	CU_ASSERT_TRUE(r.mounts[1].rw);
	CU_ASSERT_STRING_EQUAL(r.mounts[2].source, "/srv");
	CU_ASSERT_EQUAL(r.mounts[2].source_fd, -1);
	CU_ASSERT_EQUAL(r.mounts[3].source_fd, 0);	/* one descriptor, two targets */
	CU_ASSERT_PTR_NULL(r.origin);	/* serve sets it; a document never does */
	request_free(&r);
}

/* Enumerations, stdin forms, edge values that are fine. */
static void test_good_variants(void)
{
	static const struct {
		const char *text;
		int field;	/* 0 stdout_mode, 1 network, 2 stdin, 3 cwd, 4 env */
		int value;
		const char *data;
		size_t len;
	} variants[] = {
		{ DOC("\"stdout_mode\":\"stream\""), 0, STDOUT_STREAM, NULL, 0 },
		{ DOC("\"stdout_mode\":\"frame\""), 0, STDOUT_FRAME, NULL, 0 },
		{ DOC("\"network\":\"none\""), 1, NET_NONE, NULL, 0 },
		{ DOC("\"network\":\"loopback\""), 1, NET_LOOPBACK, NULL, 0 },
		{ DOC("\"network\":\"host\""), 1, NET_HOST, NULL, 0 },
		{ DOC("\"stdin\":{\"text\":\"\"}"), 2, 0, "", 0 },
		{ DOC("\"stdin\":{\"base64\":\"\"}"), 2, 0, "", 0 },
		{ DOC("\"stdin\":{\"base64\":\"AAEC/w==\"}"), 2, 0, "\x00\x01\x02\xff", 4 },
		{ DOC("\"stdin\":{\"text\":\"\\u00e9\\n\"}"), 2, 0, "\xc3\xa9\n", 3 },
		{ DOC("\"cwd\":\"/\""), 3, 0, "/", 0 },
		{ DOC("\"cwd\":\"/work/...\""), 3, 0, "/work/...", 0 },
		{ DOC("\"cwd\":\"/work/.a/b..\""), 3, 0, "/work/.a/b..", 0 },
		{ DOC("\"env\":{\"_\":\"\"}"), 4, 0, "_", 0 },
		{ DOC("\"env\":{\"a\":\"v\"}"), 4, 0, "a", 0 },
		{ DOC("\"env\":{\"A_1\":\"v\\u0001\"}"), 4, 0, "A_1", 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(variants); i++) {
		struct request r = parse_ok(variants[i].text);

		switch (variants[i].field) {
		case 0:
			CU_ASSERT_TRUE(r.stdout_mode_set);
			CU_ASSERT_EQUAL(r.stdout_mode, (enum stdout_mode)variants[i].value);
			break;
		case 1:
			CU_ASSERT_TRUE(r.network_set);
			CU_ASSERT_EQUAL(r.network, (enum net_mode)variants[i].value);
			break;
		case 2:
			CU_ASSERT_TRUE(r.stdin_given);
			CU_ASSERT_PTR_NOT_NULL(r.stdin_data);
			CU_ASSERT_EQUAL(r.stdin_len, variants[i].len);
			if (r.stdin_data && r.stdin_len == variants[i].len)
				CU_ASSERT_EQUAL(memcmp(r.stdin_data, variants[i].data,
						       variants[i].len),
						0);
			break;
		case 3:
			CU_ASSERT_STRING_EQUAL(r.cwd, variants[i].data);
			break;
		default:
			CU_ASSERT_EQUAL_FATAL(r.n_env, 1);
			CU_ASSERT_STRING_EQUAL(r.env_names[0], variants[i].data);
			break;
		}
		request_free(&r);
	}
}

/* request_from_json takes an already parsed document. */
static void test_from_json(void)
{
	struct json_object *doc = json_tokener_parse(DOC("\"cwd\":\"rel\""));
	struct request r = { 0 };
	struct verrors e = { 0 };

	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_EQUAL(request_from_json(doc, &r, &e), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(e.n, 1);
	CU_ASSERT_STRING_EQUAL(e.items[0].pointer, "/cwd");
	json_object_put(doc);

	doc = json_tokener_parse(DOC("\"cwd\":\"/x\""));
	e.n = 0;
	CU_ASSERT_EQUAL(request_from_json(doc, &r, &e), 0);
	CU_ASSERT_EQUAL(e.n, 0);
	CU_ASSERT_STRING_EQUAL(r.cwd, "/x");
	request_free(&r);
	json_object_put(doc);
}

/* ---- file names ---- */

static void test_name_ok(void)
{
	static const struct {
		const char *name;
		bool ok;
	} names[] = {
		{ "a", true },		{ "in.txt", true },	{ "...", true },
		{ ".a", true },		{ "a..", true },	{ "sp ace", true },
		{ "\xc3\xa9", true },	{ "-", true },		{ "~", true },
		{ "", false },		{ ".", false },		{ "..", false },
		{ "a/b", false },	{ "/", false },		{ "a/", false },
		{ "/a", false },	{ "\x01", false },	{ "a\x1f", false },
		{ "a\n", false },	{ "a\x7f", false },	{ "\t", false },
	};
	char long_name[REQ_MAX_NAME + 2];

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		CU_ASSERT_EQUAL(request_name_ok(names[i].name), names[i].ok);
	memset(long_name, 'n', sizeof(long_name));
	long_name[REQ_MAX_NAME] = '\0';
	CU_ASSERT_TRUE(request_name_ok(long_name));
	long_name[REQ_MAX_NAME] = 'n';
	long_name[REQ_MAX_NAME + 1] = '\0';
	CU_ASSERT_FALSE(request_name_ok(long_name));
}

/* Collect names: relative paths of bare names, never leaving the dir. */
static void test_relpath_ok(void)
{
	static const struct {
		const char *name;
		bool ok;
	} names[] = {
		{ "a", true },		{ "a/b", true },	{ "a/b/c.txt", true },
		{ ".a/..b/...", true },	{ "out/", false },	{ "/a", false },
		{ "a//b", false },	{ "a/./b", false },	{ "a/../b", false },
		{ "..", false },	{ "../a", false },	{ "a/..", false },
		{ "", false },		{ "/", false },		{ "a/\n", false },
	};
	char long_path[REQ_MAX_RELPATH + 2];

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		CU_ASSERT_EQUAL(request_relpath_ok(names[i].name), names[i].ok);
	for (size_t i = 0; i < sizeof(long_path) - 1; i++)
		long_path[i] = i % 2 ? '/' : 'a';
	long_path[REQ_MAX_RELPATH - 1] = '\0'; /* ends in a name */
	CU_ASSERT_TRUE(request_relpath_ok(long_path));
	long_path[REQ_MAX_RELPATH - 1] = 'a';
	long_path[REQ_MAX_RELPATH + 1] = '\0';
	CU_ASSERT_FALSE(request_relpath_ok(long_path));
}

/* ---- base64 ---- */

static void test_base64_vectors(void)
{
	/* RFC 4648, section 10 */
	static const char *const vec[][2] = {
		{ "", "" },		{ "f", "Zg==" },	{ "fo", "Zm8=" },
		{ "foo", "Zm9v" },	{ "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" },
		{ "foobar", "Zm9vYmFy" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(vec); i++) {
		char *enc = base64_encode_alloc((const uint8_t *)vec[i][0], strlen(vec[i][0]));
		uint8_t *dec = NULL;
		size_t len = 99;

		CU_ASSERT_PTR_NOT_NULL_FATAL(enc);
		CU_ASSERT_STRING_EQUAL(enc, vec[i][1]);
		CU_ASSERT_EQUAL(base64_decode_strict(vec[i][1], strlen(vec[i][1]), &dec, &len), 0);
		CU_ASSERT_EQUAL(len, strlen(vec[i][0]));
		CU_ASSERT_PTR_NOT_NULL_FATAL(dec);
		CU_ASSERT_EQUAL(memcmp(dec, vec[i][0], len), 0);
		free(enc);
		free(dec);
	}
}

/* Every byte value, at every length up to 3 blocks and past them. */
static void test_base64_round_trip(void)
{
	uint8_t data[300];

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 3);
	for (size_t n = 0; n <= sizeof(data); n++) {
		char *enc = base64_encode_alloc(data, n);
		uint8_t *dec = NULL;
		size_t len = 0;

		CU_ASSERT_PTR_NOT_NULL_FATAL(enc);
		CU_ASSERT_EQUAL(strlen(enc), (n + 2) / 3 * 4);
		CU_ASSERT_EQUAL_FATAL(base64_decode_strict(enc, strlen(enc), &dec, &len), 0);
		CU_ASSERT_EQUAL(len, n);
		CU_ASSERT(n == 0 || memcmp(dec, data, n) == 0);
		free(enc);
		free(dec);
	}
}

static void test_base64_rejects(void)
{
	static const char *const bad[] = {
		"Z", "Zg", "Zg=", "Zm9vY", "Zm9vYg=",			/* length */
		"Zg==Zg==", "Z===", "====", "=Zg=", "Zg=a", "Z=g=",	/* padding */
		"Zm9v====",
		"Zm-_", "Zm9*", "Zm 9", "Zm9\n", " Zm9v", "Zm9v\r\n",	/* alphabet */
		"Zm9\xc3", "Zm\x80v",
		"Zh==", "Zm9=", "YWJ=",					/* stray bits */
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		uint8_t *dec = (uint8_t *)"untouched";
		size_t len = 77;
		int rc = base64_decode_strict(bad[i], strlen(bad[i]), &dec, &len);

		if (rc != -EINVAL)
			fprintf(stderr, "\n  accepted \"%s\"\n", bad[i]);
		CU_ASSERT_EQUAL(rc, -EINVAL);
		CU_ASSERT_EQUAL(len, 77);
		CU_ASSERT_STRING_EQUAL((const char *)dec, "untouched");
	}
	/* A NUL inside the given length is not base64 either. */
	{
		uint8_t *dec = NULL;
		size_t len = 0;

		CU_ASSERT_EQUAL(base64_decode_strict("Zm\0v", 4, &dec, &len), -EINVAL);
		CU_ASSERT_PTR_NULL(dec);
	}
}

static const struct unit_case cases[] = {
	{ "bad documents: code and pointer", test_bad_table },
	{ "good: minimal document", test_good_minimal },
	{ "good: every field", test_good_full },
	{ "good: variants", test_good_variants },
	{ "good: overlay mounts and export_changes", test_good_overlay },
	{ "good: mounts by descriptor", test_good_source_fd },
	{ "request_from_json", test_from_json },
	{ "request_name_ok", test_name_ok },
	{ "request_relpath_ok", test_relpath_ok },
	{ "base64 RFC 4648 vectors", test_base64_vectors },
	{ "base64 round trips", test_base64_round_trip },
	{ "base64 rejections", test_base64_rejects },
	{ NULL, NULL },
};

UNIT_MAIN("request")
