//! Containers and clusters: deleting namespaces or everything in them, pruning volumes and
//! systems, removing every container.

use super::{On, Pack, Rule};
use crate::guard::Severity::{Critical, High};
use crate::guard::normalize::Lang::Shell;

const SH: On = On::Lang(Shell);

pub static PACK: Pack = Pack {
    name: "containers",
    description: "kubectl delete namespace/--all, docker system/volume prune, volume rm, rm -f of all containers",
    default_on: true,
    keywords: &["oc", "kubectl", "docker", "podman"],
    rules: &[
        Rule {
            id: "kubectl-delete-namespace",
            severity: Critical,
            on: SH,
            programs: &["kubectl", "oc"],
            needles: &["delete"],
            regex: r"^(?:kubectl|oc)\s(?:.*\s)?delete\s+(?:(?:-n|--namespace|--context|-l|--selector)\s+\S+\s+|-\S+\s+)*(?:\S+,)?(?:namespaces?|ns|projects?)(?:[\s/,]|$)",
            unless: None,
            and: None,
            why: "deletes a namespace and every workload, volume claim and secret in it",
            instead: "delete the specific resources by name, after `kubectl get` shows what they are",
        },
        Rule {
            id: "kubectl-delete-all",
            severity: Critical,
            on: SH,
            programs: &["kubectl", "oc"],
            needles: &["delete"],
            regex: r"^(?:kubectl|oc)\s(?:.*\s)?delete\s(?:.*\s)?(?:--all(?:=true)?|--all-namespaces(?:=true)?|-A)(?:\s|$)",
            unless: None,
            and: None,
            why: "deletes every resource of a kind (or across all namespaces) at once",
            instead: "delete resources by name or a narrow label selector, after `kubectl get` with the same selector",
        },
        Rule {
            id: "docker-system-prune",
            severity: High,
            on: SH,
            programs: &["docker", "podman"],
            needles: &["prune"],
            regex: r"^(?:docker|podman)\s(?:.*\s)?system\s+prune(?:\s|$)",
            unless: None,
            and: None,
            why: "removes all stopped containers, unused networks, images and build cache (and volumes with --volumes)",
            instead: "remove the specific containers or images by name",
        },
        Rule {
            id: "docker-volume-delete",
            severity: Critical,
            on: SH,
            programs: &["docker", "podman"],
            needles: &["volume"],
            regex: r"^(?:docker|podman)\s(?:.*\s)?volume\s+(?:prune|rm|remove)(?:\s|$)",
            unless: None,
            and: None,
            why: "deletes volumes, the persistent data of containers (databases live there)",
            instead: "back the volume up first (`docker run --rm -v VOL:/v -v $PWD:/b alpine tar czf /b/vol.tgz /v`) and let a human remove it",
        },
        Rule {
            id: "docker-rm-all",
            severity: Critical,
            on: SH,
            programs: &["docker", "podman"],
            needles: &["rm"],
            regex: r"^(?:docker|podman)\s(?:.*\s)?(?:rm|container\s+rm)\s(?:.*\s)?'?\$\((?:docker|podman)\s+(?:ps|container\s+(?:ls|list))(?:\s|\))",
            unless: Some(
                r"\$\((?:docker|podman)\s+(?:ps|container\s+(?:ls|list))\s[^)]*(?:\s-f|\s--filter)(?:\s|=)",
            ),
            and: None,
            why: "removes every container on the machine, not just this project's",
            instead: "remove this project's containers by name, or `docker compose down` in the project",
        },
        Rule {
            id: "container-rm-host-mount",
            severity: Critical,
            on: SH,
            programs: &["docker", "podman"],
            needles: &["rm"],
            regex: r"^(?:docker|podman|nerdctl)\s(?:.*\s)?(?:run|create|exec)\s(?:.*\s)?(?:-v|--volume|--mount)[=\s]'?(?:type=bind,\s*)?(?:(?:src|source)=)?(?:/+|~/*|/+(?:home|root|etc|usr|var|srv|opt|Users)(?:/[^:,\s']*)?|/+home/+[^/:,\s']+)[:,]",
            unless: None,
            and: Some(r"\srm\s+(?:.*\s)?(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)\s"),
            why: "the container gets the host's root, home or a system directory mounted and deletes recursively inside it: the host's files go",
            instead: "mount only the project directory (`-v \"$PWD\":/src`), and delete inside it",
        },
        Rule {
            id: "compose-down-volumes",
            severity: Critical,
            on: SH,
            programs: &["docker", "docker-compose", "podman", "podman-compose"],
            needles: &["down"],
            regex: r"^(?:docker|podman|docker-compose|podman-compose)\s(?:.*\s)?down\s(?:.*\s)?(?:-v|--volumes)(?:\s|$)",
            unless: None,
            and: None,
            why: "removes the project's volumes with its containers: the databases and files kept in them are gone",
            instead: "`docker compose down` without -v keeps the volumes",
        },
    ],
};
