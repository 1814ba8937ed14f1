/* test-request-bad.c: unit tests of request documents (frontend/doc/request.c)
 * refused: a table of bad documents, each with the error code and the
 * exact JSON pointer it must get, the request left untouched. Good
 * documents: test-request.c; the size bounds: test-request-limits.c. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"
#include "doc/json-util.h"
#include "doc/policy.h"
#include "doc/request.h"

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

static const struct unit_case cases[] = {
	{ "bad documents: code and pointer", test_bad_table },
	{ NULL, NULL },
};

UNIT_MAIN("request-bad")
