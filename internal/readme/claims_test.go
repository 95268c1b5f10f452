package readme_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// apiPackage is what one package declares: its exported names, and for
// each exported type the exported fields and methods it has.
type apiPackage struct {
	names   map[string]bool
	members map[string]map[string]bool // type → field or method
}

// publicPackages are the packages a doc names as pkg.Name: the root
// module's importable packages and runlog/natslog, by package name.
var publicPackages = []string{"agent", "aguipb", "assemble", "assembletest", "cli", "codec", "event", "framing", "natslog", "protoconv", "runlog", "runlogtest", "transport"}

// loadAPI reads the declarations of every package of the repository (the
// nested modules' too, for natslog), keyed by package name, with the
// comments of each non-test file.
func loadAPI(t *testing.T) (map[string]*apiPackage, map[string][]*ast.File) {
	t.Helper()
	api := map[string]*apiPackage{}
	files := map[string][]*ast.File{}
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "node_modules", ".git", "bench", "examples", "tools":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		name := f.Name.Name
		if name == "main" {
			return nil
		}
		files[name] = append(files[name], f)
		p := api[name]
		if p == nil {
			p = &apiPackage{names: map[string]bool{}, members: map[string]map[string]bool{}}
			api[name] = p
		}
		member := func(typ, m string) {
			if p.members[typ] == nil {
				p.members[typ] = map[string]bool{}
			}
			p.members[typ][m] = true
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					p.names[d.Name.Name] = true
					continue
				}
				typ := d.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				if ix, ok := typ.(*ast.IndexExpr); ok {
					typ = ix.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					member(id.Name, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						p.names[s.Name.Name] = true
						if s.Assign.IsValid() { // an alias: its members are its target's
							continue
						}
						if p.members[s.Name.Name] == nil {
							p.members[s.Name.Name] = map[string]bool{}
						}
						var fields *ast.FieldList
						switch tt := s.Type.(type) {
						case *ast.StructType:
							fields = tt.Fields
						case *ast.InterfaceType:
							fields = tt.Methods
						}
						if fields != nil {
							for _, fl := range fields.List {
								for _, n := range fl.Names {
									member(s.Name.Name, n.Name)
								}
								if len(fl.Names) == 0 { // embedded
									if id, ok := fl.Type.(*ast.Ident); ok {
										member(s.Name.Name, id.Name)
									}
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							p.names[n.Name] = true
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return api, files
}

var (
	qualifiedName = regexp.MustCompile(`(?:^|[^\w.])(` + strings.Join(publicPackages, "|") + `)\.([A-Z]\w*)(?:\.([A-Z]\w*))?`)
	typeMember    = regexp.MustCompile(`(?:^|[^\w.])([A-Z]\w*)\.([A-Z]\w*)`)
	testFunc      = regexp.MustCompile(`^(Test|Benchmark|Fuzz|Example)`)
)

// checkClaims reports each name in text that the code does not declare:
// pkg.Name and pkg.Type.Member for the public packages, and Type.Member
// for an exported type (of own first, the package the text documents, or
// of any package when own is ""). where names the text in errors.
func checkClaims(t *testing.T, api map[string]*apiPackage, own, where, text string) {
	t.Helper()
	for _, m := range qualifiedName.FindAllStringSubmatch(text, -1) {
		p := api[m[1]]
		switch {
		case p == nil, testFunc.MatchString(m[2]): // tests are not API
		case !p.names[m[2]]:
			t.Errorf("%s names %s.%s, which package %s does not declare", where, m[1], m[2], m[1])
		case m[3] != "" && p.members[m[2]] != nil && !p.members[m[2]][m[3]]:
			t.Errorf("%s names %s.%s.%s, which %s.%s does not have", where, m[1], m[2], m[3], m[1], m[2])
		}
	}
	for _, m := range typeMember.FindAllStringSubmatch(text, -1) {
		typ, mem := m[1], m[2]
		if own != "" && api[own] != nil && api[own].members[typ] != nil {
			if !api[own].members[typ][mem] {
				t.Errorf("%s names %s.%s, which %s.%s does not have", where, typ, mem, own, typ)
			}
			continue
		}
		declared, found := false, false
		for _, name := range publicPackages {
			if p := api[name]; p != nil && p.members[typ] != nil {
				declared = true
				found = found || p.members[typ][mem]
			}
		}
		if declared && !found {
			t.Errorf("%s names %s.%s, which no %s type has", where, typ, mem, typ)
		}
	}
}

// TestDocNamesExist keeps the docs honest about the API: every pkg.Name,
// pkg.Type.Member and Type.Member (an options field, a method) that
// README.md, docs/*.md and the packages' comments mention exists in the
// code. A field renamed or removed without its mentions fails here.
func TestDocNamesExist(t *testing.T) {
	api, files := loadAPI(t)
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range append(pages, "../../README.md", "../../interop/README.md", "../../fuzz/README.md") {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		checkClaims(t, api, "", strings.TrimPrefix(page, "../../"), string(text))
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, f := range files[name] {
			for _, cg := range f.Comments {
				checkClaims(t, api, name, "a comment of package "+name, cg.Text())
			}
		}
	}
}
